//! Example requests and answers of the Voucher operations, published in the
//! spec ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

/// A Voucher as answers show it.
macro_rules! voucher {
    () => {
        r#"{"id": "vch_01j9z3k4m5n6p7q8r9s0t1v2w3", "code": "FIVE-7KQ2M", "coupon_id": 1000000,
            "coupon_name": "Five off", "customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0",
            "state": "active", "uses_left": 1, "source": "trigger",
            "created_at": "2026-07-04T10:00:00Z"}"#
    };
}

/// A redemption as answers show it.
macro_rules! redemption {
    () => {
        r#"{"redemption_id": "rdm_01j9z3q8w7e6r5t4y3u2i1o0p9", "voucher_code": "FIVE-7KQ2M",
            "voucher_id": "vch_01j9z3k4m5n6p7q8r9s0t1v2w3", "coupon_id": 1000000,
            "customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "location_code": "S1",
            "redeemed_at": "2026-07-04T10:05:00Z"}"#
    };
}

/// The Customer and the codes of a request on several Vouchers.
const HOLDER_CODES: &str =
    r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "codes": ["FIVE-7KQ2M", "SUMMER10"]}"#;

/// The Customer of a request on one Voucher.
const HOLDER: &str = r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0"}"#;

/// The Voucher operations' examples.
pub const EXAMPLES: &[OperationExample] = &[
    OperationExample {
        operation: "GET /vouchers/{code}",
        request: None,
        response: Some(voucher!()),
    },
    OperationExample {
        operation: "POST /vouchers/redeem",
        request: Some(
            r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "codes": ["FIVE-7KQ2M"],
                "location_code": "S1", "cart_code": "T1-0042"}"#,
        ),
        response: Some(concat!(
            r#"{"redemptions": ["#,
            redemption!(),
            r#"], "vouchers": ["#,
            voucher!(),
            "]}"
        )),
    },
    OperationExample {
        operation: "POST /vouchers/rollback",
        request: Some(r#"{"redemption_ids": ["rdm_01j9z3q8w7e6r5t4y3u2i1o0p9"]}"#),
        response: Some(concat!(r#"{"redemptions": ["#, redemption!(), "]}")),
    },
    OperationExample {
        operation: "POST /vouchers/{code}/freeze",
        request: Some(r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "minutes": 10}"#),
        response: Some(concat!(
            r#"{"reservation_id": "rsv_01j9z3r4t5y6u7i8o9p0a1s2d3", "expires_at": "2026-07-04T10:10:00Z", "voucher": "#,
            voucher!(),
            "}"
        )),
    },
    OperationExample {
        operation: "POST /vouchers/{code}/unfreeze",
        request: Some(
            r#"{"customer_id": "cus_01j9z3a1b2c3d4e5f6g7h8j9k0", "reservation_id": "rsv_01j9z3r4t5y6u7i8o9p0a1s2d3"}"#,
        ),
        response: Some(voucher!()),
    },
    OperationExample {
        operation: "POST /vouchers/{code}/select",
        request: Some(HOLDER),
        response: Some(voucher!()),
    },
    OperationExample {
        operation: "POST /vouchers/{code}/deselect",
        request: Some(HOLDER),
        response: Some(voucher!()),
    },
    OperationExample {
        operation: "PUT /vouchers/select",
        request: Some(HOLDER_CODES),
        response: Some(concat!(r#"{"vouchers": ["#, voucher!(), "]}")),
    },
    OperationExample {
        operation: "PUT /vouchers/deselect",
        request: Some(HOLDER_CODES),
        response: Some(concat!(r#"{"vouchers": ["#, voucher!(), "]}")),
    },
    OperationExample {
        operation: "POST /vouchers/print",
        request: Some(HOLDER),
        response: Some(concat!(
            r#"{"printed": [{"voucher": "#,
            voucher!(),
            r#", "text": "Five off\n5.00 off\nCode: FIVE-7KQ2M\nUntil 2026-09-30"}]}"#
        )),
    },
    OperationExample {
        operation: "PUT /vouchers/print",
        request: Some(HOLDER_CODES),
        response: None,
    },
    OperationExample {
        operation: "GET /vouchers",
        request: None,
        response: Some(concat!(r#"{"vouchers": ["#, voucher!(), "]}")),
    },
    OperationExample {
        operation: "GET /customers/{id}/vouchers/selected",
        request: None,
        response: Some(concat!(r#"{"vouchers": ["#, voucher!(), "]}")),
    },
    OperationExample {
        operation: "GET /vouchers/excluded_products",
        request: None,
        response: Some(
            r#"{"coupons": [{"coupon_id": 1000000, "excluded_products": ["GIFTCARD"],
                             "excluded_categories": ["tobacco"]}]}"#,
        ),
    },
];

#[cfg(test)]
mod tests {
    use poem_openapi::types::ParseFromJSON;
    use serde_json::Value;

    use super::*;
    use crate::resources::vouchers::api::{
        ExcludedProducts, RedeemedVouchers, VoucherList, VoucherRedeem, VoucherRollback,
    };
    use crate::resources::vouchers::freeze_api::{FreezeRequest, UnfreezeRequest};
    use crate::resources::vouchers::model::{FrozenVoucher, Voucher};
    use crate::resources::vouchers::selection_api::{HolderCodes, VoucherHolder};

    fn example(operation: &str) -> (Option<Value>, Option<Value>) {
        let found = EXAMPLES
            .iter()
            .find(|e| e.operation == operation)
            .unwrap_or_else(|| panic!("no example of {operation}"));
        let parse = |text: Option<&str>| text.map(|t| serde_json::from_str(t).unwrap());
        (parse(found.request), parse(found.response))
    }

    fn parses<T: ParseFromJSON>(value: Option<Value>) {
        if let Err(error) = T::parse_from_json(value) {
            panic!("{}", error.into_message());
        }
    }

    #[test]
    fn every_request_example_is_what_the_operation_accepts() {
        parses::<VoucherRedeem>(example("POST /vouchers/redeem").0);
        parses::<VoucherRollback>(example("POST /vouchers/rollback").0);
        parses::<FreezeRequest>(example("POST /vouchers/{code}/freeze").0);
        parses::<UnfreezeRequest>(example("POST /vouchers/{code}/unfreeze").0);
        for operation in [
            "POST /vouchers/{code}/select",
            "POST /vouchers/{code}/deselect",
        ] {
            parses::<VoucherHolder>(example(operation).0);
        }
        parses::<VoucherHolder>(example("POST /vouchers/print").0);
        for operation in [
            "PUT /vouchers/select",
            "PUT /vouchers/deselect",
            "PUT /vouchers/print",
        ] {
            parses::<HolderCodes>(example(operation).0);
        }
    }

    #[test]
    fn every_answer_example_reads_as_the_answer() {
        parses::<Voucher>(example("GET /vouchers/{code}").1);
        parses::<RedeemedVouchers>(example("POST /vouchers/redeem").1);
        parses::<FrozenVoucher>(example("POST /vouchers/{code}/freeze").1);
        parses::<ExcludedProducts>(example("GET /vouchers/excluded_products").1);
        for operation in ["GET /vouchers", "GET /customers/{id}/vouchers/selected"] {
            parses::<VoucherList>(example(operation).1);
        }
    }
}
