//! A Company's campaigns: each one in force with its file and line (or its
//! revision when created through the API) and whether it applies now, and
//! the problems that hold a changed set of files back.

use minijinja::context;
use poem::{Request, Response, handler};

use crate::http::back_office::pages::company_page::CompanyPage;

/// `GET /companies/{slug}/campaigns`.
#[handler]
pub async fn show(request: &Request, page: CompanyPage<'_>) -> Response {
    let slug = &page.slug;
    let read = page.services.campaign_overview(slug).await;
    let read = read.map(|overview| context! { slug, company => slug, overview });
    page.show(request, "campaigns.html", read)
}
