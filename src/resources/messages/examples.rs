//! Example requests of the message operations, published in the spec
//! ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;

/// The message operations' examples.
pub const EXAMPLES: &[OperationExample] = &[OperationExample {
    operation: "POST /messages/print",
    request: Some(
        r#"{"customer_code": "EXT-1", "messages": ["105:welcome", "105:double_points"], "width": 32}"#,
    ),
    response: Some(
        r#"{"text": "Gracias por volver: hoy tus\ncompras suman doble.",
            "messages": [
              {"id": "105:welcome", "rule_id": 105, "printed": false,
               "reason": "already_printed", "text": "¡Bienvenido al club!",
               "language": "es", "once": true},
              {"id": "105:double_points", "rule_id": 105, "printed": true,
               "text": "Gracias por volver: hoy tus\ncompras suman doble.",
               "language": "es", "once": false}
            ]}"#,
    ),
}];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::spec::examples::parses;
    use crate::resources::messages::model::{PrintRequest, PrintedMessages};

    #[test]
    fn every_example_is_what_the_operation_accepts_and_answers() {
        for example in EXAMPLES {
            let (operation, request, response) =
                (example.operation, example.request, example.response);
            match operation {
                "POST /messages/print" => {
                    parses::<PrintRequest>(operation, request);
                    parses::<PrintedMessages>(operation, response);
                }
                other => panic!("no check for {other}"),
            }
        }
    }
}
