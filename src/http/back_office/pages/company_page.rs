//! What a page or a form of one Company (`/companies/{slug}/...`) works
//! with, taken from the request once: the Company's slug from the path, the
//! use-cases, the templates and, for a form, the operator's session.

use minijinja::Value;
use poem::http::StatusCode;
use poem::web::{Data, Path};
use poem::{FromRequest, Request, RequestBody, Response};

use crate::error::ApiResult;

use crate::http::back_office::pages::companies::company_path;
use crate::http::back_office::pages::render::{Pages, see_other};
use crate::http::back_office::pages::session::{Notice, Session};
use crate::services::Services;

/// A page of the Company named in the path.
pub struct CompanyPage<'a> {
    /// The Company's slug.
    pub slug: String,
    /// The use-cases it reads with.
    pub services: &'a Services,
    /// The templates it renders.
    pub pages: &'a Pages,
}

impl<'a> FromRequest<'a> for CompanyPage<'a> {
    async fn from_request(request: &'a Request, body: &mut RequestBody) -> poem::Result<Self> {
        let Path(slug) = Path::<String>::from_request(request, body).await?;
        let Data(services) = Data::<&Services>::from_request(request, body).await?;
        let Data(pages) = Data::<&Pages>::from_request(request, body).await?;
        Ok(Self {
            slug,
            services,
            pages,
        })
    }
}

impl CompanyPage<'_> {
    /// The page `template` shows with the values `read` gave, or the page
    /// of its error.
    pub fn show(&self, request: &Request, template: &str, read: ApiResult<Value>) -> Response {
        match read {
            Ok(values) => self.pages.render(request, StatusCode::OK, template, values),
            Err(error) => self.pages.error(request, &error),
        }
    }
}

/// A form sent on a page of the Company named in the path.
pub struct CompanyAction<'a> {
    /// The page it was sent on.
    pub page: CompanyPage<'a>,
    /// The operator's session, told how it went.
    pub session: &'a Session,
}

impl<'a> FromRequest<'a> for CompanyAction<'a> {
    async fn from_request(request: &'a Request, body: &mut RequestBody) -> poem::Result<Self> {
        let page = CompanyPage::from_request(request, body).await?;
        let Data(session) = Data::<&Session>::from_request(request, body).await?;
        Ok(Self { page, session })
    }
}

impl CompanyAction<'_> {
    /// Tells the operator `notice` and goes back to the Company's page.
    pub fn back_to_company(&self, notice: Notice) -> Response {
        self.page.pages.sessions().tell(self.session, notice);
        see_other(&company_path(&self.page.slug))
    }
}
