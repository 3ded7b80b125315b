//! Issuing Vouchers: one at a time, all or none (POST /discounts/trigger,
//! a targeted Instant Win's assignment), and in batches that issue what they
//! can (bulk issues). One Voucher per issue key; a Coupon's
//! `issues_per_customer` counted in one record per Customer.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::error::ApiError;
use crate::error::ApiResult;
use crate::error::ErrorCode;
use crate::http::idempotency::store::WRITE_ANSWER;
use crate::resources::vouchers::codes::code_key;
use crate::resources::vouchers::model::Voucher;
use crate::resources::vouchers::model::VoucherIssue;
use crate::resources::vouchers::store::voucher_document;
use crate::resources::vouchers::store::voucher_from;
use crate::resources::webhooks::emit::Subscriptions;
use crate::storage::REFUSED;
use crate::storage::Store;
use crate::storage::first;

/// The `code` key of a code the service made; `concurrent_modification`
/// never, since every code made is checked when made.
fn key_of(code: &str) -> ApiResult<String> {
    code_key(code).ok_or_else(|| ApiError::internal(format!("voucher code `{code}` has no key")))
}

/// SurrealQL issuing each of `$vouchers` (made by [`issue_documents`])
/// of `$company`
/// whose issue key was not issued before: its code taken, or its Customer
/// holding the Coupon's `issues_cap` Vouchers already, refuses the whole when
/// `$refuse`, and leaves that one out otherwise. A Customer's issues of a
/// Coupon are counted in one record, so simultaneous issues cannot pass the
/// cap together.
pub(crate) fn issue_statements() -> String {
    format!(
        "FOR $voucher IN $vouchers {{
             LET $reason = type::record('voucher_issue', [$company, $voucher.issue_key]);
             IF !record::exists($reason) {{
                 LET $record = type::record('voucher', [$company, $voucher.key]);
                 LET $counted = type::record('voucher_issue_count',
                     [$company, $voucher.coupon_id, $voucher.customer_id]);
                 LET $held = IF $voucher.customer_id == '' {{ 0 }} ELSE {{
                     ($counted.issued) ?? 0
                 }};
                 IF record::exists($record)
                     OR record::exists(type::record('static_code', [$company, $voucher.key])) {{
                     IF $refuse {{
                         THROW '{REFUSED}{taken}|voucher code ' + $voucher.code + ' is taken';
                     }};
                 }} ELSE IF $voucher.issues_cap != NONE AND $held >= $voucher.issues_cap {{
                     IF $refuse {{
                         THROW '{REFUSED}{capped}|the Customer holds the ' + <string> $voucher.issues_cap
                             + ' Vouchers of Coupon ' + <string> $voucher.coupon_id + ' it issues to one Customer';
                     }};
                 }} ELSE {{
                     CREATE $record CONTENT $voucher.document RETURN NONE;
                     CREATE $reason SET key = $voucher.key RETURN NONE;
                     IF $voucher.webhooks {{
                         INSERT INTO webhook_outbox $voucher.webhooks RETURN NONE;
                     }};
                     IF $voucher.customer_id != '' {{
                         UPSERT $counted SET issued = $held + 1 RETURN NONE;
                     }};
                 }};
             }};
         }};",
        taken = ErrorCode::VoucherCodeTaken.code(),
        capped = ErrorCode::CouponIssueLimitReached.code(),
    )
}

/// The transaction issuing `$vouchers` ([`issue_statements`]).
fn issue_query() -> String {
    format!(
        "BEGIN TRANSACTION; {} {WRITE_ANSWER} COMMIT TRANSACTION;",
        issue_statements()
    )
}

/// `issues` as [`issue_query`] reads them, each with the outbox rows of
/// its `voucher.issued` webhook event for the endpoints of `webhooks`
/// subscribed (written only when the Voucher is).
pub(crate) fn issue_documents(
    webhooks: &Subscriptions,
    company: &str,
    issues: &[VoucherIssue],
) -> ApiResult<Vec<Value>> {
    issues
        .iter()
        .map(|issue| {
            let key = key_of(&issue.voucher.code)?;
            let mut document = json!({
                "key": key,
                "issue_key": issue.issue_key,
                "code": issue.voucher.code,
                "coupon_id": issue.voucher.coupon_id,
                "customer_id": issue.voucher.customer_id,
                "document": voucher_document(company, &key, &issue.voucher, Some(&issue.issue_key)),
            });
            if let Some(cap) = issue.issues_per_customer {
                document["issues_cap"] = json!(cap);
            }
            let reported = voucher_webhooks(webhooks, company, &issue.voucher);
            if !reported.is_empty() {
                document["webhooks"] = Value::Array(reported);
            }
            Ok(document)
        })
        .collect()
}

/// The outbox rows of `voucher.issued` for `voucher` of `company`.
fn voucher_webhooks(webhooks: &Subscriptions, company: &str, voucher: &Voucher) -> Vec<Value> {
    let Some(data) = poem_openapi::types::ToJSON::to_json(voucher) else {
        return Vec::new();
    };
    let customer = Some(voucher.customer_id.as_str()).filter(|id| !id.is_empty());
    webhooks.rows(
        company,
        "voucher.issued",
        customer,
        data,
        voucher.created_at,
    )
}

/// What became of one Voucher of a batch ([`Store::issue_voucher_batch`]).
#[derive(Debug, Clone, PartialEq)]
pub enum IssueOutcome {
    /// Issued now or before, for its issue key: the Voucher.
    Issued(Box<Voucher>),
    /// Its code is another Voucher's: draw another.
    CodeTaken,
    /// Its Customer holds as many Vouchers of the Coupon as it issues to
    /// one.
    OverCap,
}

impl Store {
    /// How many Vouchers of each of `coupons` the Customer `customer_id`
    /// was issued, as their Coupons' `issues_per_customer` counts them.
    pub async fn voucher_issue_counts(
        &self,
        company: &str,
        customer_id: &str,
        coupons: &[i64],
    ) -> ApiResult<HashMap<i64, u32>> {
        let held: Vec<Value> = first(
            self.db
                .query(
                    "RETURN array::map($coupons, |$coupon| [$coupon,
                         (type::record(
                             'voucher_issue_count', [$company, $coupon, $customer]).issued) ?? 0])",
                )
                .bind(("company", company.to_string()))
                .bind(("customer", customer_id.to_string()))
                .bind(("coupons", coupons.to_vec())),
        )
        .await?;
        Ok(held
            .iter()
            .filter_map(|pair| {
                let issued = u32::try_from(pair[1].as_i64()?).ok()?;
                Some((pair[0].as_i64()?, issued))
            })
            .collect())
    }

    /// Issues `issues`, all or none: one whose issue key was issued before
    /// gives the Voucher issued then. A code already taken refuses the whole
    /// with `voucher_code_taken` (the caller draws new codes and tries again),
    /// a Customer at the Coupon's cap with `coupon_issue_limit_reached`.
    /// Answers the Vouchers in the order asked.
    pub async fn issue_vouchers(
        &self,
        company: &str,
        issues: &[VoucherIssue],
    ) -> ApiResult<Vec<Voucher>> {
        self.write_issues(company, issues, true).await?;
        let reasons: Vec<String> = issues.iter().map(|i| i.issue_key.clone()).collect();
        let rows: Vec<Value> = first(
            self.db
                .query(
                    "SELECT * OMIT id FROM array::map($reasons, |$reason|
                         type::record('voucher', [$company,
                             type::record('voucher_issue', [$company, $reason]).key]))",
                )
                .bind(("company", company.to_string()))
                .bind(("reasons", reasons)),
        )
        .await?;
        rows.into_iter().map(voucher_from).collect()
    }

    /// Issues what it can of `issues` in one transaction, leaving out a
    /// Voucher whose code is taken or whose Customer is at the Coupon's cap;
    /// answers what became of each, in the order asked.
    ///
    /// Bearer Vouchers (no owner, so no cap to count) take a faster way: the
    /// issue keys and codes are read first, and the new Vouchers and their
    /// issue keys written by two `INSERT`s; when a concurrent issue took one
    /// of them meanwhile, that transaction fails and the batch is issued one
    /// Voucher at a time like any other.
    pub async fn issue_voucher_batch(
        &self,
        company: &str,
        issues: &[VoucherIssue],
    ) -> ApiResult<Vec<IssueOutcome>> {
        let documents: Vec<Value> = issues
            .iter()
            .map(|issue| {
                Ok(json!({
                    "issue_key": issue.issue_key,
                    "key": key_of(&issue.voucher.code)?,
                }))
            })
            .collect::<ApiResult<_>>()?;
        let bearer = issues
            .iter()
            .all(|issue| issue.voucher.customer_id.is_empty());
        let written = if bearer {
            self.insert_new_issues(company, issues, &documents).await
        } else {
            Err(ApiError::internal("owned Vouchers count their issues"))
        };
        if written.is_err() {
            self.write_issues(company, issues, false).await?;
        }
        let statuses = self.issue_statuses(company, &documents).await?;
        // A Voucher issued now is the one sent; only those an earlier issue
        // gave are read back.
        let earlier: Vec<String> = statuses
            .iter()
            .zip(&documents)
            .filter_map(|(status, sent)| {
                status["issued"]
                    .as_str()
                    .filter(|key| Some(*key) != sent["key"].as_str())
                    .map(str::to_string)
            })
            .collect();
        let mut earlier = self.vouchers_by_keys(company, &earlier).await?.into_iter();
        statuses
            .iter()
            .zip(&documents)
            .zip(issues)
            .map(|((status, sent), issue)| {
                if status["issued"].is_string() && status["issued"] == sent["key"] {
                    Ok(IssueOutcome::Issued(Box::new(issue.voucher.clone())))
                } else if status["issued"].is_string() {
                    earlier
                        .next()
                        .map(|voucher| IssueOutcome::Issued(Box::new(voucher)))
                        .ok_or_else(|| ApiError::internal("an issued Voucher was not read back"))
                } else if status["taken"].as_bool() == Some(true) {
                    Ok(IssueOutcome::CodeTaken)
                } else {
                    Ok(IssueOutcome::OverCap)
                }
            })
            .collect()
    }

    /// For each of `documents` (`issue_key` and code `key`): the key of
    /// the Voucher its issue key gave (`issued`, if any) and whether its
    /// code is taken.
    async fn issue_statuses(&self, company: &str, documents: &[Value]) -> ApiResult<Vec<Value>> {
        first(
            self.db
                .query(
                    "SELECT VALUE {
                         issued: type::record('voucher_issue', [$company, issue_key]).key,
                         taken: record::exists(type::record('voucher', [$company, key]))
                     } FROM $issues",
                )
                .bind(("company", company.to_string()))
                .bind(("issues", documents.to_vec())),
        )
        .await
    }

    /// Writes the Vouchers of `issues` whose issue keys and codes are new
    /// (as read just before) with two `INSERT`s in one transaction; fails
    /// whole when one was taken meanwhile.
    async fn insert_new_issues(
        &self,
        company: &str,
        issues: &[VoucherIssue],
        documents: &[Value],
    ) -> ApiResult<()> {
        let statuses = self.issue_statuses(company, documents).await?;
        let mut codes = std::collections::HashSet::new();
        let mut vouchers = Vec::new();
        let mut reasons = Vec::new();
        let mut reported = Vec::new();
        for ((status, sent), issue) in statuses.iter().zip(documents).zip(issues) {
            let key = sent["key"].as_str().unwrap_or_default();
            // Issued before, its code taken, or drawn twice in this batch:
            // left for the statuses to tell.
            if status["issued"].is_string()
                || status["taken"].as_bool() == Some(true)
                || !codes.insert(key.to_string())
            {
                continue;
            }
            let mut voucher =
                voucher_document(company, key, &issue.voucher, Some(&issue.issue_key));
            voucher["id"] = json!([company, key]);
            vouchers.push(voucher);
            reported.extend(voucher_webhooks(
                &self.memory.webhooks,
                company,
                &issue.voucher,
            ));
            reasons.push(json!({"id": [company, issue.issue_key], "key": key}));
        }
        if vouchers.is_empty() {
            return Ok(());
        }
        self.transact(|db| {
            db.query(
                "BEGIN TRANSACTION;
                 INSERT INTO voucher $vouchers RETURN NONE;
                 INSERT INTO voucher_issue $reasons RETURN NONE;
                 IF $webhook_deliveries {
                     INSERT INTO webhook_outbox $webhook_deliveries RETURN NONE;
                 };
                 COMMIT TRANSACTION;",
            )
            .bind(("vouchers", vouchers.clone()))
            .bind(("reasons", reasons.clone()))
            .bind(("webhook_deliveries", reported.clone()))
        })
        .await
        .map(drop)
    }

    /// Runs [`issue_query`] on `issues`.
    async fn write_issues(
        &self,
        company: &str,
        issues: &[VoucherIssue],
        refuse: bool,
    ) -> ApiResult<()> {
        let documents = issue_documents(&self.memory.webhooks, company, issues)?;
        let query = issue_query();
        self.transact(|db| {
            db.query(query.as_str())
                .bind(("company", company.to_string()))
                .bind(("vouchers", documents.clone()))
                .bind(("refuse", refuse))
        })
        .await?;
        Ok(())
    }

    /// How many Vouchers of the Coupon `coupon_id` were issued.
    pub async fn coupon_voucher_count(&self, company: &str, coupon_id: i64) -> ApiResult<u64> {
        let counted: Vec<Value> = first(
            self.db
                .query(
                    "SELECT count() AS issued FROM voucher
                         WHERE company = $company AND coupon_id = $coupon GROUP ALL",
                )
                .bind(("company", company.to_string()))
                .bind(("coupon", coupon_id)),
        )
        .await?;
        Ok(counted
            .first()
            .and_then(|row| row["issued"].as_u64())
            .unwrap_or(0))
    }
}
