//! Example requests of the message operations, published in the spec
//! ([`crate::http::spec::examples`]).

use crate::http::spec::examples::OperationExample;
use crate::resources::messages::model::{PrintRequest, PrintedMessages};

/// The message operations' examples.
pub const EXAMPLES: &[OperationExample] = &[OperationExample::new("POST /messages/print").takes::<PrintRequest>(r#"{"customer_code": "EXT-1", "messages": ["105:welcome", "105:double_points"], "width": 32}"#).answers::<PrintedMessages>(r#"{"text": "Gracias por volver: hoy tus\ncompras suman doble.",
            "messages": [
              {"id": "105:welcome", "rule_id": 105, "printed": false,
               "reason": "already_printed", "text": "¡Bienvenido al club!",
               "language": "es", "once": true},
              {"id": "105:double_points", "rule_id": 105, "printed": true,
               "text": "Gracias por volver: hoy tus\ncompras suman doble.",
               "language": "es", "once": false}
            ]}"#)];
