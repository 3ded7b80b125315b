//! The five operations of a kind of master record (Products, Locations):
//! create, list, get, update and delete, written once in
//! `master_record_api!` and declared by each kind with its paths, payload
//! types, use-cases, error codes and the words of its own docs.

/// The API struct `api` serving a kind of master record under `collection`
/// (POST, GET) and `item` (GET, PATCH, DELETE; `item_spec` as the spec
/// writes it, its path parameter named `param`), tagged `tag`; its
/// declared errors (`taken`, `missing`); the payloads (`new`, `record`,
/// `changes`, `list` with its `items` field); the use-cases it calls; and
/// each operation's docs.
macro_rules! master_record_api {
    (
        $(#[$api_doc:meta])*
        api: $api:ident,
        tag: $tag:literal,
        collection: $collection:literal,
        item: $item:literal,
        item_spec: $item_spec:literal,
        param: $param:ident,
        taken: $taken:expr,
        missing: $missing:expr,
        payloads: {
            new: $new:ty,
            record: $record:ident,
            changes: $changes:ty,
            list: $list:ident { $items:ident },
        },
        use_cases: {
            create: $create_use:ident,
            list: $list_use:ident,
            get: $get_use:ident,
            update: $update_use:ident,
            delete: $delete_use:ident $(,)?
        },
        create: { $(#[$create_doc:meta])* },
        list: { $(#[$list_doc:meta])* },
        get: { $(#[$get_doc:meta])* },
        update: { $(#[$update_doc:meta])* },
        delete: { $(#[$delete_doc:meta])* } $(,)?
    ) => {
        $crate::http::spec::errors::api_with_errors! {
            $(#[$api_doc])* $api {
                concat!("POST ", $collection) => [$taken, $crate::error::ErrorCode::UnknownFeature],
                concat!("GET ", $collection) => [],
                concat!("GET ", $item_spec) => [$missing],
                concat!("PATCH ", $item_spec) => [$missing, $taken, $crate::error::ErrorCode::UnknownFeature],
                concat!("DELETE ", $item_spec) => [$missing],
            }
        }

        #[poem_openapi::OpenApi(tag = $tag)]
        impl $api {
            $(#[$create_doc])*
            #[oai(path = $collection, method = "post")]
            async fn create(
                &self,
                caller: $crate::http::auth::Tier3<'_>,
                body: poem_openapi::payload::Json<$new>,
            ) -> Result<poem_openapi::payload::Json<$record>, $crate::http::errors::ErrorResponse> {
                caller.answers_with($record::clone);
                Ok(poem_openapi::payload::Json(
                    caller.services
                        .$create_use(&caller.company, body.0)
                        .await?,
                ))
            }

            $(#[$list_doc])*
            #[oai(path = $collection, method = "get")]
            async fn list(
                &self,
                caller: $crate::http::auth::Tier2<'_>,
                #[oai(validator(pattern = r"^[A-Za-z0-9_-]{1,64}:[A-Za-z0-9_-]{1,64}$"))]
                feature: poem_openapi::param::Query<Option<String>>,
                #[oai(validator(minimum(value = 1.0), maximum(value = 100.0)))]
                per_page: poem_openapi::param::Query<Option<u32>>,
                #[oai(validator(max_length = 128))]
                starting_after: poem_openapi::param::Query<Option<String>>,
            ) -> Result<poem_openapi::payload::Json<$list>, $crate::http::errors::ErrorResponse> {
                let page = $crate::common::pagination::PageRequest::new(per_page.0, starting_after.0)?;
                let page = caller.services
                    .$list_use(&caller.company, feature.0.as_deref(), &page)
                    .await?;
                Ok(poem_openapi::payload::Json($list {
                    $items: page.items,
                    next_token_starts_after: page.next_token_starts_after,
                }))
            }

            $(#[$get_doc])*
            #[oai(path = $item, method = "get")]
            async fn get(
                &self,
                caller: $crate::http::auth::Tier2<'_>,
                #[oai(validator(min_length = 1, max_length = 128))]
                $param: poem_openapi::param::Path<String>,
                search_by: poem_openapi::param::Query<Option<$crate::resources::master_data::search_by::MasterSearchBy>>,
            ) -> Result<poem_openapi::payload::Json<$record>, $crate::http::errors::ErrorResponse> {
                Ok(poem_openapi::payload::Json(
                    caller.services
                        .$get_use(&caller.company, &$param.0, search_by.0.unwrap_or_default())
                        .await?,
                ))
            }

            $(#[$update_doc])*
            #[oai(path = $item, method = "patch")]
            async fn update(
                &self,
                caller: $crate::http::auth::Tier3<'_>,
                #[oai(validator(min_length = 1, max_length = 128))]
                $param: poem_openapi::param::Path<String>,
                search_by: poem_openapi::param::Query<Option<$crate::resources::master_data::search_by::MasterSearchBy>>,
                body: poem_openapi::payload::Json<$changes>,
            ) -> Result<poem_openapi::payload::Json<$record>, $crate::http::errors::ErrorResponse> {
                caller.answers_with($record::clone);
                Ok(poem_openapi::payload::Json(
                    caller.services
                        .$update_use(
                            &caller.company,
                            &$param.0,
                            search_by.0.unwrap_or_default(),
                            body.0,
                        )
                        .await?,
                ))
            }

            $(#[$delete_doc])*
            #[oai(path = $item, method = "delete")]
            async fn delete(
                &self,
                caller: $crate::http::auth::Tier3<'_>,
                #[oai(validator(min_length = 1, max_length = 128))]
                $param: poem_openapi::param::Path<String>,
                search_by: poem_openapi::param::Query<Option<$crate::resources::master_data::search_by::MasterSearchBy>>,
            ) -> Result<
                poem_openapi::payload::Json<$crate::resources::taxonomies::model::DeletedMasterRecord>,
                $crate::http::errors::ErrorResponse,
            > {
                Ok(poem_openapi::payload::Json(
                    caller.services
                        .$delete_use(&caller.company, &$param.0, search_by.0.unwrap_or_default())
                        .await?,
                ))
            }
        }
    };
}

pub(crate) use master_record_api;
