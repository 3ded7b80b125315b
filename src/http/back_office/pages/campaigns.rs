//! A Company's campaigns: each one in force with its file and line (or its
//! revision when created through the API) and whether it applies now, and
//! the problems that hold a changed set of files back.

use minijinja::context;
use poem::http::StatusCode;
use poem::{Request, Response, handler};

use crate::http::back_office::pages::company_page::CompanyPage;

/// `GET /companies/{slug}/campaigns`.
#[handler]
pub async fn show(
    request: &Request,
    CompanyPage {
        slug,
        services,
        pages,
    }: CompanyPage<'_>,
) -> Response {
    match services.campaign_overview(&slug).await {
        Ok(overview) => pages.render(
            request,
            StatusCode::OK,
            "campaigns.html",
            context! { slug => &slug, company => &slug, overview },
        ),
        Err(error) => pages.error(request, &error),
    }
}
