//! A Company's API keys: created (the secret shown on this one answer and
//! never again), enabled and disabled. System keys are shown, never edited.

use minijinja::context;
use poem::http::StatusCode;
use poem::web::{Data, Form, Path};
use poem::{Request, Response, handler};
use serde::Deserialize;

use crate::error::{ApiError, ErrorCode};
use crate::http::back_office::pages::companies::{company_path, refused};
use crate::http::back_office::pages::company_page::{CompanyAction, CompanyPage};
use crate::http::back_office::pages::render::{Pages, see_other};
use crate::http::back_office::pages::session::{Notice, Session};
use crate::resources::companies::keys::NewKey;
use crate::services::Services;

/// The key creation form: both fields are required, so an operator decides
/// whether the key works from the start.
#[derive(Debug, Deserialize)]
pub struct KeyForm {
    #[serde(default)]
    description: String,
    #[serde(default)]
    enabled: String,
}

/// `POST /companies/{slug}/keys`: creates a key and shows its secret once.
#[handler]
pub async fn create(
    request: &Request,
    action: CompanyAction<'_>,
    Form(form): Form<KeyForm>,
) -> Response {
    let CompanyPage {
        slug,
        services,
        pages,
    } = &action.page;
    let created = async {
        let enabled = match form.enabled.as_str() {
            "true" => true,
            "false" => false,
            _ => {
                return Err(ApiError::invalid(
                    "say whether the key is enabled from the start",
                ));
            }
        };
        services
            .create_key(NewKey {
                company: slug.clone(),
                description: form.description.clone(),
                enabled,
            })
            .await
    }
    .await;
    match created {
        // Rendered on this answer, not after a redirect: the secret is kept
        // nowhere, and the page is not cached (`Cache-Control: no-store`).
        Ok(created) => pages.render(
            request,
            StatusCode::OK,
            "key_created.html",
            context! { company => slug, created => created },
        ),
        Err(error) => action.back_to_company(refused(&error)),
    }
}

/// `POST /companies/{slug}/keys/{key}/enable`.
#[handler]
pub async fn enable(
    Path((slug, key)): Path<(String, String)>,
    Data(services): Data<&Services>,
    Data(pages): Data<&Pages>,
    Data(session): Data<&Session>,
) -> Response {
    switch(services, pages, session, &slug, &key, true).await
}

/// `POST /companies/{slug}/keys/{key}/disable`.
#[handler]
pub async fn disable(
    Path((slug, key)): Path<(String, String)>,
    Data(services): Data<&Services>,
    Data(pages): Data<&Pages>,
    Data(session): Data<&Session>,
) -> Response {
    switch(services, pages, session, &slug, &key, false).await
}

/// Enables or disables `key` of the Company `slug`; a key of another
/// Company is not found from this page.
async fn switch(
    services: &Services,
    pages: &Pages,
    session: &Session,
    slug: &str,
    key: &str,
    enabled: bool,
) -> Response {
    let switched = async {
        let of_company = services.keys(Some(slug)).await?;
        if !of_company.iter().any(|listed| listed.key == key) {
            return Err(ApiError::new(
                ErrorCode::ApiKeyNotFound,
                format!("Company `{slug}` has no such API key"),
            ));
        }
        services.set_key_enabled(key, enabled).await
    }
    .await;
    let notice = match switched {
        Ok(updated) if updated.enabled => Notice::ok(format!("Key {} enabled.", updated.key)),
        Ok(updated) => Notice::ok(format!(
            "Key {} disabled: calls with it are refused from now on.",
            updated.key
        )),
        Err(error) => refused(&error),
    };
    pages.sessions().tell(session, notice);
    see_other(&company_path(slug))
}
