//! Bulk issues: an operator issues a Coupon's Vouchers by the thousand
//! (`loyalty vouchers issue`), either bearer codes any Customer can present
//! (`count`) or one Voucher for each of a list of Customers. An issue has a
//! name (`source`): issuing again under the same name gives the same
//! Vouchers, so an interrupted issue is simply run again.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::common::validate::validate_slug;
use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::resources::coupons::rules::CouponCodes;
use crate::resources::coupons::rules::find_coupon;
use crate::resources::customers::service::CustomerRef;
use crate::resources::vouchers::issue_store::IssueOutcome;
use crate::resources::vouchers::model::NewVoucher;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::model::VoucherIssue;
use crate::services::Services;

/// Most Vouchers one request issues; the CLI sends larger issues in parts.
pub const MAX_BULK_ISSUE: u64 = 10_000;

/// Vouchers written per transaction.
const ISSUE_BATCH: usize = 1_000;

/// How often Vouchers whose drawn codes are taken draw again.
const CODE_ATTEMPTS: usize = 5;

/// A part of a bulk issue of one Coupon.
#[derive(Debug, Clone, Object, Serialize, Deserialize)]
#[oai(deny_unknown_fields)]
pub struct BulkIssue {
    /// The issue's name (1 to 64 letters, digits, `_` or `-`): issuing again
    /// under it gives the same Vouchers.
    pub source: String,
    /// Bearer Vouchers (no owner: any Customer presents them), numbered from
    /// `first`, up to 10000 per request. Or
    #[oai(validator(minimum(value = "1"), maximum(value = "10000")))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// with `count`: the number of the first (default 0), so an issue sent in
    /// parts numbers each part on from the last.
    #[oai(validator(minimum(value = "0"), maximum(value = "1000000000")))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<u64>,
    /// one Voucher for each of these Customers (ids), up to 10000.
    #[oai(validator(min_items = 1, max_items = 10000))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer_ids: Option<Vec<String>>,
}

/// A Voucher a bulk issue could not give a Customer, and why.
#[derive(Debug, Clone, Object, Serialize, Deserialize, PartialEq)]
pub struct BulkRefusal {
    /// The Customer.
    pub customer_id: String,
    /// `customer_not_found`, `customer_inactive` or
    /// `coupon_issue_limit_reached`.
    pub code: String,
    /// What it means here.
    pub error: String,
}

/// What a bulk issue gave.
#[derive(Debug, Clone, Object, Serialize, Deserialize)]
pub struct BulkIssued {
    /// The Vouchers, in the order asked (issued now or by an earlier run
    /// under the same name).
    pub vouchers: Vec<Voucher>,
    /// The Customers that got none, and why.
    pub refused: Vec<BulkRefusal>,
}

fn refusal(customer_id: &str, error: &ApiError) -> BulkRefusal {
    BulkRefusal {
        customer_id: customer_id.to_string(),
        code: error.code.code().to_string(),
        error: error.message.clone(),
    }
}

impl Services {
    /// Issues a part of a bulk issue of the Coupon `coupon_id`: `count`
    /// bearer Vouchers, or one per Customer of `customer_ids` (those unknown,
    /// inactive or at the Coupon's `issues_per_customer` are refused one by
    /// one). Refused whole when the Coupon has a static code, or when its
    /// codes would fill more than 1 % of its pattern's keyspace.
    pub async fn bulk_issue(
        &self,
        company: &str,
        coupon_id: i64,
        issue: BulkIssue,
    ) -> ApiResult<BulkIssued> {
        validate_slug("source", &issue.source)?;
        let rules = self.catalog.company(company);
        let (campaign, coupon) = find_coupon(&rules.campaigns, coupon_id)?;
        let CouponCodes::Generated(pattern) = &coupon.codes else {
            return Err(ApiError::invalid(format!(
                "Coupon {coupon_id} has one static code for everyone: there is nothing to issue in bulk"
            )));
        };
        let mut refused = Vec::new();
        // (issue key, owner) of each Voucher to issue.
        let wanted: Vec<(String, String)> = match (issue.count, issue.customer_ids) {
            (Some(count), None) => {
                let first = issue.first.unwrap_or(0);
                (first..first + count.min(MAX_BULK_ISSUE))
                    .map(|n| {
                        (
                            format!("bulk:{coupon_id}:{}:{n}", issue.source),
                            String::new(),
                        )
                    })
                    .collect()
            }
            (None, Some(customer_ids)) if issue.first.is_none() => {
                let mut owners = Vec::with_capacity(customer_ids.len());
                for customer_id in &customer_ids {
                    match self
                        .active_customer_by(company, CustomerRef::id(customer_id))
                        .await
                    {
                        Ok(customer) => owners.push((
                            format!("bulk:{coupon_id}:{}:{}", issue.source, customer.id),
                            customer.id,
                        )),
                        Err(error)
                            if matches!(
                                error.code,
                                ErrorCode::CustomerNotFound | ErrorCode::CustomerInactive
                            ) =>
                        {
                            refused.push(refusal(customer_id, &error));
                        }
                        Err(error) => return Err(error),
                    }
                }
                owners
            }
            _ => {
                return Err(ApiError::invalid(
                    "a bulk issue names `count` (and optionally `first`) or `customer_ids`",
                ));
            }
        };
        let already = self.store.coupon_voucher_count(company, coupon_id).await?;
        pattern
            .admits(already + wanted.len() as u64)
            .map_err(ApiError::invalid)?;
        let settings = self.company_settings(company).await?;
        let language = settings.default_language.clone();
        let coupon_name = campaign.name.resolve(&language, &language);
        let now = self.now();
        let new_issue = |(issue_key, owner): &(String, String)| VoucherIssue {
            issue_key: issue_key.clone(),
            issues_per_customer: coupon.issues_per_customer,
            voucher: Voucher {
                campaign_history_id: Some(issue.source.clone()),
                ..Voucher::issued(
                    crate::common::ids::time_ordered_id("vch"),
                    NewVoucher {
                        code: pattern.generate(&mut rand::rng()),
                        coupon_id,
                        coupon_name: coupon_name.clone(),
                        customer_id: owner.clone(),
                        uses_left: i64::from(coupon.uses_per_voucher),
                        source: "bulk",
                        created_at: now,
                        valid_until: coupon.valid_until(now),
                    },
                )
            },
        };
        let mut vouchers = Vec::with_capacity(wanted.len());
        // Two batches at once: their records never meet, and a transaction
        // runs on one core.
        for pair in wanted.chunks(ISSUE_BATCH * 2) {
            let (first, second) = pair.split_at(pair.len().min(ISSUE_BATCH));
            let (first, second) = tokio::join!(
                self.issue_batch(company, first, &new_issue),
                self.issue_batch(company, second, &new_issue)
            );
            for ((_, owner), outcome) in pair.iter().zip(first?.into_iter().chain(second?)) {
                match outcome {
                    Some(IssueOutcome::Issued(voucher)) => vouchers.push(*voucher),
                    Some(IssueOutcome::OverCap) => refused.push(refusal(
                        owner,
                        &ApiError::new(
                            ErrorCode::CouponIssueLimitReached,
                            format!(
                                "the Customer holds the Vouchers of Coupon {coupon_id} it issues to one Customer"
                            ),
                        ),
                    )),
                    _ => {
                        return Err(ApiError::internal(
                            "codes kept being drawn taken: the pattern is nearly full",
                        ));
                    }
                }
            }
        }
        tracing::info!(company, coupon_id, source = %issue.source, issued = vouchers.len(), refused = refused.len(), "Vouchers issued in bulk");
        Ok(BulkIssued { vouchers, refused })
    }

    /// Issues `part` (issue key and owner of each Voucher) in one
    /// transaction, drawing new codes for those whose codes were taken, a
    /// few times; what became of each.
    async fn issue_batch(
        &self,
        company: &str,
        part: &[(String, String)],
        new_issue: &(dyn Fn(&(String, String)) -> VoucherIssue + Sync),
    ) -> ApiResult<Vec<Option<IssueOutcome>>> {
        let mut outcomes: Vec<Option<IssueOutcome>> = vec![None; part.len()];
        for _ in 0..CODE_ATTEMPTS {
            // Those not issued yet, each with a newly drawn code.
            let pending: Vec<usize> = (0..part.len())
                .filter(|&i| matches!(outcomes[i], None | Some(IssueOutcome::CodeTaken)))
                .collect();
            if pending.is_empty() {
                break;
            }
            let issues: Vec<VoucherIssue> = pending.iter().map(|&i| new_issue(&part[i])).collect();
            let answered = self.store.issue_voucher_batch(company, &issues).await?;
            for (index, outcome) in pending.into_iter().zip(answered) {
                outcomes[index] = Some(outcome);
            }
        }
        Ok(outcomes)
    }
}
