//! A Customer as the API gives it, read-only: looked up by id, code, e-mail,
//! phone or card (the look-up is a form, so no e-mail or phone ends up in a
//! URL or the browser's history), with balances, ledger, carts, Vouchers,
//! Reward transactions, Challenges, game plays and Instant Win
//! participations, each read by the same use-case as its API operation.

use minijinja::context;
use poem::http::StatusCode;
use poem::web::Form;
use poem::{Request, Response, handler};
use poem_openapi::types::ToJSON;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::common::language::Language;
use crate::common::pagination::PageRequest;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::http::back_office::pages::company_page::CompanyPage;
use crate::resources::companies::model::Company;
use crate::resources::customers::model::SearchBy;
use crate::resources::customers::service::CustomerRef;
use crate::resources::instant_wins::service::InstantWinFilter;
use crate::services::Services;

/// Items of each list the page shows (the newest).
const SHOWN: u32 = 20;

/// Longest text of a nested value in a table cell.
const CELL_CHARS: usize = 240;

/// `GET /companies/{slug}/customers`: the look-up form.
#[handler]
pub async fn form(request: &Request, page: CompanyPage<'_>) -> Response {
    let read = page.services.company(&page.slug).await;
    let read = read.map(|_| context! { slug => &page.slug, by => "email" });
    page.show(request, "customers.html", read)
}

/// The look-up form.
#[derive(Debug, Deserialize)]
pub struct Lookup {
    #[serde(default)]
    find: String,
    #[serde(default)]
    by: String,
}

/// `POST /companies/{slug}/customers`: the Customer found, or why none was.
#[handler]
pub async fn lookup(
    request: &Request,
    page: CompanyPage<'_>,
    Form(lookup): Form<Lookup>,
) -> Response {
    let CompanyPage {
        slug,
        services,
        pages,
    } = page;
    let company = match services.company(&slug).await {
        Ok(company) => company,
        Err(error) => return pages.error(request, &error),
    };
    let found = async {
        let by = search_by(&lookup.by)?;
        view(
            services,
            &company,
            CustomerRef::by(lookup.find.trim(), Some(by)),
        )
        .await
    }
    .await;
    let shared = context! { slug, find => lookup.find.trim(), by => lookup.by };
    match found {
        Ok(view) => pages.render(
            request,
            StatusCode::OK,
            "customers.html",
            context! { view, ..shared },
        ),
        Err(error)
            if matches!(
                error.code,
                ErrorCode::CustomerNotFound | ErrorCode::InvalidRequest
            ) =>
        {
            pages.render(
                request,
                error.code.status(),
                "customers.html",
                context! { missing => format!("{} ({})", error.message, error.code.code()), ..shared },
            )
        }
        Err(error) => pages.error(request, &error),
    }
}

fn search_by(name: &str) -> ApiResult<SearchBy> {
    Ok(match name {
        "id" => SearchBy::Id,
        "code" => SearchBy::Code,
        "email" => SearchBy::Email,
        "phone" => SearchBy::Phone,
        "card" => SearchBy::Card,
        other => {
            return Err(ApiError::invalid(format!(
                "look a Customer up by id, code, email, phone or card, not `{other}`"
            )));
        }
    })
}

/// A Customer and what hangs off them, as the API's operations give it.
#[derive(Debug, Serialize)]
struct CustomerView {
    profile: Value,
    points: i64,
    wallet: i64,
    sections: Vec<Section>,
}

/// One list of the page: a table, or why it could not be read.
#[derive(Debug, Serialize)]
struct Section {
    title: &'static str,
    operation: &'static str,
    table: Option<Table>,
    problem: Option<String>,
}

/// Rows of API objects, their fields as columns.
#[derive(Debug, Serialize)]
struct Table {
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

async fn view(
    services: &Services,
    company: &Company,
    reference: CustomerRef<'_>,
) -> ApiResult<CustomerView> {
    let slug = company.slug.as_str();
    let customer = services.find_customer(slug, reference).await?.customer;
    let by_id = CustomerRef::id(&customer.id);
    let page = || PageRequest::new(Some(SHOWN), None);
    let language = Language {
        chosen: company.default_language.clone(),
        default: company.default_language.clone(),
        locale: company.locale(),
    };
    let (_, points, wallet) = services.balances(slug, by_id).await?;
    let instant_wins = InstantWinFilter {
        customer: Some(by_id),
        ..InstantWinFilter::default()
    };
    let (ledger, carts, vouchers, rewards, challenges, games, draws) = tokio::join!(
        services.points_transactions(slug, by_id, None, page()?),
        services.carts(slug, Some(by_id), None, None, page()?),
        services.vouchers(slug, Some(by_id), None, page()?),
        services.reward_transaction_page(slug, by_id, page()?),
        services.customer_challenges(slug, by_id, None, &language),
        services.games(slug, Some(by_id), &language),
        services.instant_wins(slug, instant_wins, page()?, &language),
    );
    let sections = vec![
        section(
            "Points and wallet ledger",
            "GET /points/transactions",
            ledger.map(|p| p.items),
        ),
        section("Carts", "GET /carts", carts.map(|p| p.items)),
        section("Vouchers", "GET /vouchers", vouchers.map(|p| p.items)),
        section(
            "Reward transactions",
            "GET /rewards/transactions",
            rewards.map(|p| p.items),
        ),
        section(
            "Challenges",
            "GET /customers/{value}/challenges",
            challenges,
        ),
        section("Games and plays", "GET /games?customer_id=", games),
        section(
            "Instant Win participations",
            "GET /instant_wins?customer_id=",
            draws.map(|p| p.items),
        ),
    ];
    Ok(CustomerView {
        profile: customer.to_json().unwrap_or_default(),
        points,
        wallet,
        sections,
    })
}

fn section<T: ToJSON>(
    title: &'static str,
    operation: &'static str,
    read: ApiResult<Vec<T>>,
) -> Section {
    match read {
        Ok(items) => Section {
            title,
            operation,
            table: Some(table(items.iter().filter_map(ToJSON::to_json).collect())),
            problem: None,
        },
        Err(error) => Section {
            title,
            operation,
            table: None,
            problem: Some(format!("{} ({})", error.message, error.code.code())),
        },
    }
}

/// The objects as a table: every field any of them has, in first-seen
/// order; nested values as compact JSON.
fn table(objects: Vec<Value>) -> Table {
    let mut columns: Vec<String> = Vec::new();
    for object in &objects {
        for field in object
            .as_object()
            .into_iter()
            .flat_map(|fields| fields.keys())
        {
            if !columns.contains(field) {
                columns.push(field.clone());
            }
        }
    }
    let rows = objects
        .iter()
        .map(|object| {
            columns
                .iter()
                .map(|column| cell(object.get(column).unwrap_or(&Value::Null)))
                .collect()
        })
        .collect();
    Table { columns, rows }
}

fn cell(value: &Value) -> String {
    let text = match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    if text.chars().count() > CELL_CHARS {
        let cut: String = text.chars().take(CELL_CHARS).collect();
        format!("{cut}…")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_become_a_table_of_every_field() {
        let table = table(vec![
            json!({"code": "A", "total": 12.5}),
            json!({"code": "B", "lines": [{"sku": "x"}]}),
        ]);
        assert_eq!(table.columns, ["code", "total", "lines"]);
        assert_eq!(table.rows[0], ["A", "12.5", ""]);
        assert_eq!(table.rows[1], ["B", "", r#"[{"sku":"x"}]"#]);
    }
}
