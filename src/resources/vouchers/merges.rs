//! What a merge moves of a Customer's Vouchers: a Customer holds one
//! Voucher per targeted campaign, so the survivor keeps its own and the
//! merged Customer's of that campaign stays; a Coupon's Vouchers all move.
//! A static code's uses are counted per Customer under the Customer's own
//! key: the survivor keeps its count, the merged one's stays. An unmerge
//! gives back the Vouchers the survivor still holds.

use poem_openapi::Object;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::pipeline::contribution::MergeMoves;
use crate::pipeline::contribution::MergePart;
use crate::pipeline::contribution::MergeScope;
use crate::resources::instant_wins::service::targeted_delivery_issue;
use crate::resources::merges::model::NotRestored;
use crate::resources::vouchers::codes::code_key;
use crate::resources::vouchers::static_codes::of_static_code;
use crate::services::Services;

/// A Voucher moved by a merge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Object)]
pub struct MovedVoucher {
    /// The targeted campaign it is for (a Coupon's Voucher has none).
    #[oai(skip_serializing_if_is_none)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_id: Option<i64>,
    /// Its code.
    pub code: String,
}

/// A Voucher (stored under `key`) changing owner; refused if `from` no
/// longer holds it, or, for a targeted campaign's (`rule_id`), `to` already
/// holds one of the campaign. Its issue key becomes `issue_to`, when given.
#[derive(Serialize)]
struct VoucherMove<'a> {
    key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    issue_to: Option<String>,
    from: &'a str,
    to: &'a str,
}

/// The Vouchers a merge moves, listed in `vouchers`.
pub(crate) static VOUCHER_MOVES: MergePart = MergePart {
    field: "vouchers",
    plan_merge: |services, merge| Box::pin(plan_merge(services, merge)),
    plan_unmerge: |services, unmerge| Box::pin(plan_unmerge(services, unmerge)),
    statements: voucher_move_statements,
};

fn voucher_move_statements(stale: &str) -> String {
    format!(
        "LET $record = type::record('voucher', [$company, $move.key]);
         LET $held = ($record.{{customer_id, issue_key}});
         IF $held.customer_id != $move.from {{ {stale} }};
         IF $move.rule_id != NONE AND (SELECT VALUE vid FROM voucher
             WHERE company = $company AND customer_id = $move.to AND rule_id = $move.rule_id
             LIMIT 1)[0] != NONE {{ {stale} }};
         IF $move.issue_to != NONE {{
             DELETE type::record('voucher_issue', [$company, $held.issue_key]);
             UPSERT type::record('voucher_issue', [$company, $move.issue_to])
                 SET key = $move.key RETURN NONE;
             UPDATE $record SET issue_key = $move.issue_to RETURN NONE;
         }};
         UPDATE $record SET customer_id = $move.to RETURN NONE;"
    )
}

/// The merged Customer's Vouchers move but for static codes' and those of
/// a targeted campaign the survivor holds one of.
async fn plan_merge(services: &Services, merge: &MergeScope<'_>) -> ApiResult<MergeMoves> {
    let (held, survivors) = tokio::try_join!(
        services
            .store
            .vouchers_by(merge.company, "customer_id", merge.from),
        services
            .store
            .vouchers_by(merge.company, "customer_id", merge.to),
    )?;
    let moved: Vec<MovedVoucher> = held
        .into_iter()
        .filter(|v| {
            !of_static_code(v)
                && (v.rule_id.is_none() || !survivors.iter().any(|s| s.rule_id == v.rule_id))
        })
        .map(|v| MovedVoucher {
            rule_id: v.rule_id,
            code: v.code,
        })
        .collect();
    MergeMoves::merged(&moves(&moved, merge)?, &moved)
}

/// The Vouchers moved come back, but those the survivor no longer holds.
async fn plan_unmerge(services: &Services, unmerge: &MergeScope<'_>) -> ApiResult<MergeMoves> {
    let moved: Vec<MovedVoucher> = unmerge.recorded()?;
    let held = services
        .store
        .vouchers_by(unmerge.company, "customer_id", unmerge.from)
        .await?;
    let (back, kept): (Vec<MovedVoucher>, Vec<MovedVoucher>) = moved.into_iter().partition(|m| {
        held.iter()
            .any(|v| v.rule_id == m.rule_id && v.code == m.code)
    });
    let not_restored = kept
        .into_iter()
        .map(|voucher| NotRestored {
            kind: "voucher".into(),
            value: voucher.code,
            reason: "the target no longer holds it".into(),
        })
        .collect();
    MergeMoves::unmerged(&moves(&back, unmerge)?, not_restored)
}

/// The moves of `vouchers` from `scope.from` to `scope.to`: a targeted
/// campaign's is issued again to its new holder.
fn moves<'a>(vouchers: &[MovedVoucher], scope: &MergeScope<'a>) -> ApiResult<Vec<VoucherMove<'a>>> {
    vouchers
        .iter()
        .map(|voucher| {
            let key = code_key(&voucher.code).ok_or_else(|| {
                ApiError::internal(format!("stored voucher code `{}` has no key", voucher.code))
            })?;
            Ok(VoucherMove {
                key,
                rule_id: voucher.rule_id,
                issue_to: voucher
                    .rule_id
                    .map(|rule_id| targeted_delivery_issue(rule_id, scope.to)),
                from: scope.from,
                to: scope.to,
            })
        })
        .collect()
}
