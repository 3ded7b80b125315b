//! The answer of a request carrying an Idempotency-Key, written in the very
//! transaction that does its work, so that no crash between that commit and
//! the key's completion can leave an effect without the answer a retry must
//! get back.
//!
//! The middleware ([`super::Idempotency`]) runs a keyed request inside a
//! [`PendingAnswer`] (a task-local). Its handler says how its answer is made
//! from its operation's result ([`answers_with`]); the operation, once it
//! knows its result and right before its last write, renders the answer
//! ([`answer_now`]); the write carries it ([`written_answer`] in the group
//! commit, `$answer` bound by [`crate::storage::Store::transact`]) and
//! [`super::store::WRITE_ANSWER`] completes the key in the same transaction. The
//! middleware completes the key itself only when the response sent is not
//! the answer the work's transaction wrote (a refusal, or an operation that
//! writes nothing), saving keyed writes a transaction of their own.

use std::any::Any;
use std::sync::Arc;
use std::sync::Mutex;

use poem::IntoResponse;
use poem::Request;
use poem_openapi::payload::Json;
use poem_openapi::types::ToJSON;
use serde_json::Value;

use crate::common::language::Language;
use crate::http::idempotency::model::StoredResponse;
use crate::http::rate_limits::RateVerdictSlot;

/// Makes the response of a handler from its operation's result.
type Render = Box<dyn Fn(&dyn Any) -> Option<poem::Response> + Send + Sync>;

/// How a handler makes its answer: the body, and the `Content-Language`
/// and rate-limit tier it is answered with.
struct Renderer {
    render: Render,
    language: Option<String>,
    tier: Option<String>,
}

/// The key of the request running on this task and its answer once it is
/// known.
pub(crate) struct PendingAnswer {
    company: String,
    key: String,
    fingerprint: String,
    /// How the handler makes its answer, once it said.
    render: Mutex<Option<Renderer>>,
    /// The answer rendered last, as the store keeps it.
    rendered: Mutex<Option<Value>>,
}

tokio::task_local! {
    static PENDING: Arc<PendingAnswer>;
}

impl PendingAnswer {
    /// The answer of the request holding `key` of `company`.
    pub(crate) fn new(company: &str, key: &str, fingerprint: &str) -> Arc<PendingAnswer> {
        Arc::new(PendingAnswer {
            company: company.to_string(),
            key: key.to_string(),
            fingerprint: fingerprint.to_string(),
            render: Mutex::new(None),
            rendered: Mutex::new(None),
        })
    }

    /// Whether the work's transaction completed the key with exactly the
    /// answer `status` and `body` the handler gave: its operation rendered
    /// that answer for its last write, which only commits with it.
    pub(crate) fn written_as(&self, status: u16, body: &str) -> bool {
        self.rendered.lock().ok().is_some_and(|rendered| {
            rendered.as_ref().is_some_and(|answer| {
                answer["response"]["status"] == status && answer["response"]["body"] == body
            })
        })
    }

    /// Runs `work` (the request) with this answer pending on its task.
    pub(crate) async fn scope<F: Future>(self: Arc<Self>, work: F) -> F::Output {
        PENDING.scope(self, work).await
    }
}

/// Says how the answer of the keyed request `request` is made from `O`, the
/// result of its operation: `make` gives the body the handler answers
/// with (as `Json`). Does nothing for a request without a key.
pub fn answers_with<O, T, M>(request: &Request, make: M)
where
    O: 'static,
    T: ToJSON + Send + Sync + 'static,
    M: Fn(&O) -> T + Send + Sync + 'static,
{
    answers_with_some(request, move |result: &O| Some(make(result)));
}

/// [`answers_with`] for an operation whose result may be no answer (then
/// the response sent completes the key, after the work).
pub fn answers_with_some<O, T, M>(request: &Request, make: M)
where
    O: 'static,
    T: ToJSON + Send + Sync + 'static,
    M: Fn(&O) -> Option<T> + Send + Sync + 'static,
{
    let _ = PENDING.try_with(|pending| {
        let render: Render = Box::new(move |result| {
            let result = result.downcast_ref::<O>()?;
            Some(Json(make(result)?).into_response())
        });
        let language = request
            .data::<Language>()
            .map(|language| language.chosen.clone());
        let tier = request
            .data::<RateVerdictSlot>()
            .and_then(RateVerdictSlot::charged)
            .map(|tier| tier.name().to_string());
        if let Ok(mut slot) = pending.render.lock() {
            *slot = Some(Renderer {
                render,
                language,
                tier,
            });
        }
    });
}

/// Whether the request running on this task waits for its answer to be
/// rendered by its operation ([`answer_now`]): it carries a key and its
/// handler said how its answer is made.
pub fn awaits_answer() -> bool {
    PENDING
        .try_with(|pending| pending.render.lock().is_ok_and(|render| render.is_some()))
        .unwrap_or(false)
}

/// Renders the answer of the request running on this task from `result`,
/// its operation's result, for its next write to carry: call it right
/// before the operation's last write, once the result is final.
pub async fn answer_now<O: 'static>(result: &O) {
    let Ok(pending) = PENDING.try_with(Arc::clone) else {
        return;
    };
    let made = pending.render.lock().ok().and_then(|render| {
        let renderer = render.as_ref()?;
        let response = (renderer.render)(result)?;
        Some((response, renderer.language.clone(), renderer.tier.clone()))
    });
    let Some((response, content_language, tier)) = made else {
        return;
    };
    let status = response.status().as_u16();
    let content_type = response.content_type().map(str::to_string);
    let Ok(body) = response.into_body().into_string().await else {
        return;
    };
    let stored = StoredResponse {
        status,
        content_type,
        content_language,
        body,
        tier,
    };
    let Ok(response) = serde_json::to_value(&stored) else {
        return;
    };
    let answer = serde_json::json!({
        "company": pending.company,
        "key": pending.key,
        "fingerprint": pending.fingerprint,
        "response": response,
    });
    if let Ok(mut rendered) = pending.rendered.lock() {
        *rendered = Some(answer);
    }
}

/// The answer the next write of the request running on this task carries
/// ([`super::store::WRITE_ANSWER`] reads it as `$answer`); null when there is none.
pub fn written_answer() -> Value {
    PENDING
        .try_with(|pending| pending.rendered.lock().ok().and_then(|r| r.clone()))
        .ok()
        .flatten()
        .unwrap_or(Value::Null)
}
