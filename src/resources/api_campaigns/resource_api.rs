//! The four operations of a resource whose campaigns the API writes as
//! well as files (Coupons, discount campaigns, points campaigns): create,
//! list, get and update, written once in `campaign_resource_api!` over the
//! resource's [`CampaignResource`](super::resource::CampaignResource), and
//! declared by each with its paths, payloads, error codes and the words of
//! its own docs.

/// The API struct `api` serving the campaigns of `resource` under a
/// collection path (POST, GET) and an item path (GET, PATCH; then as the
/// spec writes it, its path parameter `param` with its attributes), tagged
/// `tag`; the payloads (the spec taken, the view answered, the list with
/// its `items` field); the codes creating one may answer beyond the shared
/// ones (an update may answer them too, beside `forbidden_request` and the
/// resource's not-found code); each operation's docs (its rate limit is
/// appended: it is the macro's); and, in `more`, operations of its own with
/// their codes.
macro_rules! campaign_resource_api {
    (
        $(#[$api_doc:meta])*
        api: $api:ident for $resource:ty, tag: $tag:literal,
        paths: $collection:literal, $item:literal ($item_spec:literal),
        param: { $(#[$param_meta:meta])* $param:ident },
        payloads: $spec:ty => $view:ident, list: $list:ident { $items:ident },
        create_errors: [$($create_error:expr),* $(,)?],
        create: { $(#[$create_doc:meta])* },
        list: { $(#[$list_doc:meta])* },
        get: { $(#[$get_doc:meta])* },
        update: { $(#[$update_doc:meta])* },
        more: { errors: [$($more_errors:expr),* $(,)?], $($more:tt)* } $(,)?
    ) => {
        $crate::http::spec::errors::api_with_errors! {
            $(#[$api_doc])* $api {
                concat!("POST ", $collection) => [$($create_error),*],
                concat!("GET ", $collection) => [],
                concat!("GET ", $item_spec) => [
                    <$resource as $crate::resources::api_campaigns::resource::CampaignResource>::NOT_FOUND,
                ],
                concat!("PATCH ", $item_spec) => [
                    $crate::error::ErrorCode::ForbiddenRequest,
                    <$resource as $crate::resources::api_campaigns::resource::CampaignResource>::NOT_FOUND,
                    $($create_error),*
                ],
            }
            more: [$($more_errors),*]
        }

        #[poem_openapi::OpenApi(tag = $tag)]
        impl $api {
            $(#[$create_doc])*
            #[doc = ""]
            #[doc = " Rate limit: tier 3 (low)."]
            #[oai(path = $collection, method = "post")]
            async fn create(
                &self,
                caller: $crate::http::auth::Tier3<'_>,
                body: poem_openapi::payload::Json<$spec>,
            ) -> Result<poem_openapi::payload::Json<$view>, $crate::http::errors::ErrorResponse> {
                caller.answers_with($view::clone);
                let language = caller.language()?;
                let created = caller
                    .services
                    .create_resource_campaign::<$resource>(&caller.company, body.0, language);
                Ok(poem_openapi::payload::Json(created.await?))
            }

            $(#[$list_doc])*
            #[doc = ""]
            #[doc = " Rate limit: tier 2 (moderate)."]
            #[oai(path = $collection, method = "get")]
            async fn list(
                &self,
                caller: $crate::http::auth::Tier2<'_>,
            ) -> Result<poem_openapi::payload::Json<$list>, $crate::http::errors::ErrorResponse> {
                let language = caller.language()?;
                Ok(poem_openapi::payload::Json($list {
                    $items: caller
                        .services
                        .resource_campaigns::<$resource>(&caller.company, language),
                }))
            }

            $(#[$get_doc])*
            #[doc = ""]
            #[doc = " Rate limit: tier 2 (moderate)."]
            #[oai(path = $item, method = "get")]
            async fn get(
                &self,
                caller: $crate::http::auth::Tier2<'_>,
                $(#[$param_meta])* $param: poem_openapi::param::Path<String>,
            ) -> Result<poem_openapi::payload::Json<$view>, $crate::http::errors::ErrorResponse> {
                let language = caller.language()?;
                let found = caller
                    .services
                    .resource_campaign::<$resource>(&caller.company, &$param.0, language);
                Ok(poem_openapi::payload::Json(found?))
            }

            $(#[$update_doc])*
            #[doc = ""]
            #[doc = " Rate limit: tier 3 (low)."]
            #[oai(path = $item, method = "patch")]
            async fn update(
                &self,
                caller: $crate::http::auth::Tier3<'_>,
                $(#[$param_meta])* $param: poem_openapi::param::Path<String>,
                body: poem_openapi::payload::Json<$spec>,
            ) -> Result<poem_openapi::payload::Json<$view>, $crate::http::errors::ErrorResponse> {
                caller.answers_with($view::clone);
                let language = caller.language()?;
                let updated = caller.services.update_resource_campaign::<$resource>(
                    &caller.company,
                    &$param.0,
                    body.0,
                    language,
                );
                Ok(poem_openapi::payload::Json(updated.await?))
            }

            $($more)*
        }
    };
}

pub(crate) use campaign_resource_api;
