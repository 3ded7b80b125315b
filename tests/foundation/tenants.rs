//! No Company reaches another's data, proven from the spec: every
//! operation of `/openapi.json` that names a resource (in its path or its
//! body) is called with Company B's key on Company A's resources. Each must
//! answer that there is no such resource, show none of A's data, and change
//! nothing of A's. A new operation is covered without new test code: its
//! path parameters and body fields are filled from A's resources by what
//! they name.

use super::*;
use loyalty::resources::companies::model::CreatedApiKey;
use std::collections::BTreeMap;

/// Company A's campaigns: an Instant Win, a Reward, a game, a Challenge, a
/// Coupon of generated codes and a receipt message.
const CAMPAIGNS: [(&str, &str); 6] = [
    (
        "scratch.yaml",
        "id: 701\nkind: instant_win\nname: Scratch\non: { custom_event: scratch }\nonce: day\nonce_limit: 1\ninstant_win:\n  instant_win_prizes:\n    - id: none\n      name: Nothing\n      weight: 1\n",
    ),
    (
        "coffee.yaml",
        "id: 401\nkind: reward\nname: Coffee\npoints_cost: 10\n",
    ),
    (
        "dice.yaml",
        "id: 502\nkind: game\nname: Dice\nonce: day\nonce_limit: 1\ninstant_win:\n  instant_win_prizes:\n    - id: none\n      name: Nothing\n      weight: 1\n",
    ),
    (
        "visits.yaml",
        "id: 602\nkind: challenge\nname: Visits\non: cart\nenrollment: required\ngoal: { count: 3 }\nreward: { points: 5 }\n",
    ),
    (
        "five-off.yaml",
        "id: 31\nkind: coupon\nname: Five off\ncoupon:\n  discount: { amount: 5 }\n  code_pattern: FIVE-######\n  uses_per_voucher: 2\n",
    ),
    (
        "welcome.yaml",
        "id: 402\nkind: message\nname: Welcome\non: { custom_event: app_open }\nmessages:\n  - key: welcome\n    text: Welcome\n",
    ),
];

/// What only Company A knows: no answer to Company B may contain it.
const SECRETS: [&str; 4] = [
    "Secretname",
    "secret-a@example.com",
    "Secret milk",
    "Secret store",
];

/// Company A's resources, by what names them.
struct Fixture {
    /// Values by the name of a body field or of a resource.
    values: BTreeMap<&'static str, String>,
}

impl Fixture {
    fn get(&self, name: &str) -> String {
        self.values
            .get(name)
            .unwrap_or_else(|| panic!("Company A has no `{name}` in the fixture"))
            .clone()
    }

    /// The value of path parameter `param` of `template`: A's resource the
    /// segment before it names.
    fn path_value(&self, template: &str, param: &str) -> Option<String> {
        let segments: Vec<&str> = template.split('/').collect();
        let at = segments
            .iter()
            .position(|segment| *segment == format!("{{{param}}}"))
            .expect("the parameter is in its path");
        let before = segments[at - 1];
        let location_taxonomy = template.starts_with("/locations/taxonomies");
        let name = match (before, param) {
            (_, "associate_id") => "merged_customer",
            ("customers", _) => "customer",
            ("taxonomies", _) if location_taxonomy => "location_taxonomy",
            ("taxonomies", _) => "taxonomy",
            ("features", _) if location_taxonomy => "location_feature",
            ("features", _) => "feature",
            ("transactions", _) => "reward_transaction",
            ("rewards", _) => "reward",
            ("games", _) => "game",
            ("instant_wins", _) => "instant_win",
            ("challenges", _) => "challenge",
            ("vouchers", _) => "voucher",
            ("coupons", _) => "api_coupon",
            ("discounts", _) => "discount",
            ("points", _) => "points_campaign",
            ("promotions", _) => "promotion",
            ("products", _) => "product",
            ("locations", _) => "location",
            ("carts", _) => "cart",
            ("custom_events", _) => "custom_event",
            _ => return None,
        };
        Some(self.get(name))
    }

    /// A body field naming a resource, filled with A's.
    fn body_value(&self, field: &str) -> Option<Value> {
        let value = |name: &str| Value::String(self.get(name));
        Some(match field {
            "customer_id" | "from_customer_id" => value("customer"),
            "customer_code" => value("customer_code"),
            "to_customer_id" | "associate_id" => value("other_customer"),
            "to_customer_code" => value("other_customer_code"),
            "cart_id" | "cart_code" => value("cart"),
            "codes" => json!([self.get("voucher")]),
            "redemption_ids" => json!([self.get("redemption")]),
            "reservation_id" => value("reservation"),
            "coupon_id" => json!(31),
            "discount_id" => json!(self.get("discount").parse::<i64>().unwrap_or(0)),
            "location_code" => value("location_code"),
            "messages" => json!(["402:welcome"]),
            _ => return None,
        })
    }
}

/// Creates Company A's resources as `key`.
async fn company_a(server: &TestServer, key: &CreatedApiKey) -> Fixture {
    let mut values = BTreeMap::new();
    let call = |method: &'static str, path: String, body: Value| async move {
        let (status, answer) = server.call_as(method, &path, key, Some(body)).await;
        assert_eq!(status, 200, "{method} {path}: {answer}");
        answer
    };
    let text = |answer: &Value, field: &str| match &answer[field] {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let customer = call(
        "POST",
        "/customers".into(),
        json!({"email": "secret-a@example.com", "first_name": "Secretname", "code": "A-1",
               "cards": [{"number": "A-CARD-1"}]}),
    )
    .await;
    let customer_id = text(&customer, "id");
    let other = call(
        "POST",
        "/customers".into(),
        json!({"email": "other-a@example.com", "code": "A-2"}),
    )
    .await;
    let merged = call(
        "POST",
        "/customers".into(),
        json!({"email": "merged-a@example.com"}),
    )
    .await;
    call(
        "POST",
        "/customers/transfer".into(),
        json!({"from_customer_id": text(&merged, "id"), "to_customer_id": text(&other, "id")}),
    )
    .await;
    call(
        "POST",
        "/associations".into(),
        json!({"customer_id": customer_id, "associate_id": text(&other, "id"), "type": "family"}),
    )
    .await;
    call(
        "POST",
        "/scores/trigger".into(),
        json!({"customer_id": customer_id, "points": 500}),
    )
    .await;
    for (scope, taxonomy, feature) in [
        ("", "department", "dairy"),
        ("/locations", "region", "north"),
    ] {
        call(
            "POST",
            format!("{scope}/taxonomies"),
            json!({"slug": taxonomy, "name": "Grouping"}),
        )
        .await;
        call(
            "POST",
            format!("{scope}/taxonomies/{taxonomy}/features"),
            json!({"slug": feature, "name": "A group"}),
        )
        .await;
    }
    let product = call(
        "POST",
        "/products".into(),
        json!({"code": "A-MILK", "name": "Secret milk", "features": {"department": ["dairy"]}}),
    )
    .await;
    let location = call(
        "POST",
        "/locations".into(),
        json!({"code": "A-S1", "name": "Secret store", "country": "ES", "features": {"region": ["north"]}}),
    )
    .await;
    let cart = call(
        "POST",
        "/carts/realtime".into(),
        json!({"customer_id": customer_id, "code": "A-CART-1", "location_code": "A-S1",
               "lines": [{"product_code": "A-MILK", "quantity": 1, "price": 2.0}]}),
    )
    .await;
    let event = call(
        "POST",
        "/custom_events".into(),
        json!({"customer_id": customer_id, "type": "app_open"}),
    )
    .await;
    let reward = call(
        "POST",
        "/rewards/401/redeem".into(),
        json!({"customer_id": customer_id}),
    )
    .await;
    let voucher = call(
        "POST",
        "/discounts/trigger".into(),
        json!({"customer_id": customer_id, "coupon_id": 31}),
    )
    .await;
    let code = text(&voucher, "code");
    let held = call(
        "POST",
        format!("/vouchers/{code}/freeze"),
        json!({"customer_id": customer_id}),
    )
    .await;
    let redeemed = call(
        "POST",
        "/vouchers/redeem".into(),
        json!({"customer_id": customer_id, "codes": [code]}),
    )
    .await;
    let coupon = call(
        "POST",
        "/coupons".into(),
        json!({"name": "A coupon", "discount": {"amount": 1}, "code_pattern": "AC-#####"}),
    )
    .await;
    let discount = call(
        "POST",
        "/discounts".into(),
        json!({"name": "A discount", "discount": {"amount": 1}}),
    )
    .await;
    let points = call(
        "POST",
        "/points".into(),
        json!({"name": "A points", "on": {"custom_event": "review"}, "points": {"fixed": 1}}),
    )
    .await;
    let promotion = call(
        "POST",
        "/promotions".into(),
        json!({"name": {"en": "A promotion"}, "percent": 5, "products": ["A-MILK"]}),
    )
    .await;
    for (name, value) in [
        ("customer", customer_id.clone()),
        ("customer_code", "A-1".to_string()),
        ("other_customer", text(&other, "id")),
        ("other_customer_code", "A-2".to_string()),
        ("merged_customer", text(&merged, "id")),
        ("taxonomy", "department".to_string()),
        ("feature", "dairy".to_string()),
        ("location_taxonomy", "region".to_string()),
        ("location_feature", "north".to_string()),
        ("product", text(&product, "id")),
        ("location", text(&location, "id")),
        ("location_code", "A-S1".to_string()),
        ("cart", text(&cart, "id")),
        ("custom_event", text(&event, "id")),
        ("reward", "401".to_string()),
        ("reward_transaction", text(&reward, "id")),
        ("game", "502".to_string()),
        ("instant_win", "701".to_string()),
        ("challenge", "602".to_string()),
        ("voucher", code.clone()),
        ("reservation", text(&held, "reservation_id")),
        (
            "redemption",
            text(&redeemed["redemptions"][0], "redemption_id"),
        ),
        ("api_coupon", text(&coupon, "id")),
        ("discount", text(&discount, "id")),
        ("points_campaign", text(&points, "id")),
        ("promotion", text(&promotion, "id")),
    ] {
        values.insert(name, value);
    }
    Fixture { values }
}

/// The schema files under `dir`.
fn schema_files(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            schema_files(&path, found);
        } else if path.file_name().is_some_and(|name| name == "schema.surql") {
            found.push(path);
        }
    }
}

/// Every table the schema defines (at the top of a schema file; the ones
/// inside migrations are gone once they ran).
fn tables() -> Vec<String> {
    let mut files = Vec::new();
    schema_files(std::path::Path::new("src"), &mut files);
    let mut tables: Vec<String> = files
        .iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(file).expect("a schema file");
            text.lines()
                .filter_map(|line| {
                    let rest = line.strip_prefix("DEFINE TABLE ")?;
                    let rest = rest.strip_prefix("IF NOT EXISTS ").unwrap_or(rest);
                    let rest = rest.strip_prefix("OVERWRITE ").unwrap_or(rest);
                    rest.split_whitespace()
                        .next()
                        .map(|name| name.trim_end_matches(';').to_string())
                })
                .collect::<Vec<_>>()
        })
        .collect();
    tables.sort();
    tables.dedup();
    assert!(tables.len() > 30, "the schema's tables: {tables:?}");
    tables
}

/// Everything Company `company` has in the store, by table.
async fn everything_of(server: &TestServer, company: &str) -> BTreeMap<String, Vec<Value>> {
    let store = server.running.services.store();
    let mut everything = BTreeMap::new();
    for table in tables() {
        let mut documents = store
            .raw_documents(&table, company)
            .await
            .unwrap_or_else(|error| panic!("{table}: {error:?}"));
        documents.sort_by_key(|document| document["id"].to_string());
        if table == "api_key" {
            // When a key was last used is written a while after the use (a
            // background flush): the set-up's own calls with Company A's key
            // may land during the probes, which use only the other's key.
            for document in &mut documents {
                if let Some(fields) = document.as_object_mut() {
                    fields.remove("last_used_at");
                }
            }
        }
        everything.insert(table, documents);
    }
    everything
}

/// The schema `schema` stands for, its `$ref` followed into `spec`.
fn resolved<'a>(spec: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap_or_default();
            resolved(spec, &spec["components"]["schemas"][name])
        }
        None => match schema["allOf"].as_array().and_then(|all| all.first()) {
            Some(inner) => resolved(spec, inner),
            None => schema,
        },
    }
}

/// A value `schema` accepts: its example, enum's first value, or the
/// simplest of its type (with the required fields of an object).
fn sample(spec: &Value, schema: &Value) -> Value {
    let schema = resolved(spec, schema);
    if let Some(first) = schema["enum"].as_array().and_then(|values| values.first()) {
        return first.clone();
    }
    match schema["type"].as_str() {
        Some("string") => match schema["format"].as_str() {
            Some("date-time") => json!("2026-11-23T10:00:00Z"),
            Some("date") => json!("2026-11-23"),
            _ => json!("X1"),
        },
        Some("integer") => json!(schema["minimum"].as_i64().unwrap_or(1).max(1)),
        Some("number") => json!(schema["minimum"].as_f64().unwrap_or(1.0).max(1.0)),
        Some("boolean") => json!(false),
        Some("array") if schema["minItems"].as_u64().unwrap_or(0) > 0 => {
            json!([sample(spec, &schema["items"])])
        }
        Some("array") => json!([]),
        _ => {
            let mut object = serde_json::Map::new();
            for field in schema["required"].as_array().into_iter().flatten() {
                if let Some(field) = field.as_str() {
                    object.insert(
                        field.to_string(),
                        sample(spec, &schema["properties"][field]),
                    );
                }
            }
            Value::Object(object)
        }
    }
}

/// A body for `operation`: its spec example (or what its schema requires),
/// with every field that names a resource filled with Company A's (a
/// field naming the same thing by code left out when its id is sent).
fn body_for(spec: &Value, operation: &Value, fixture: &Fixture) -> Option<Value> {
    let content = operation["requestBody"]["content"].as_object()?;
    let media = content.values().next()?;
    let schema = resolved(spec, &media["schema"]);
    let mut body = match &media["example"] {
        Value::Object(example) => Value::Object(example.clone()),
        _ => sample(spec, schema),
    };
    let object = body.as_object_mut()?;
    let properties: Vec<String> = schema["properties"]
        .as_object()
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default();
    for field in &properties {
        let by_id = field
            .strip_suffix("_code")
            .is_some_and(|named| properties.contains(&format!("{named}_id")));
        if by_id {
            object.remove(field);
        } else if let Some(value) = fixture.body_value(field) {
            object.insert(field.clone(), value);
        }
    }
    // Of fields the schema takes one of (`oneOf`), only the example's.
    let required = |option: &Value| -> Vec<String> {
        option["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|name| name.as_str().map(str::to_string))
            .collect()
    };
    let options: Vec<Vec<String>> = schema["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .map(required)
        .collect();
    let example = media["example"].as_object();
    let chosen = options.iter().position(|fields| {
        fields
            .iter()
            .all(|field| example.is_some_and(|example| example.contains_key(field)))
    });
    for (index, fields) in options.iter().enumerate() {
        if Some(index) != chosen.or(Some(0)) {
            for field in fields {
                object.remove(field);
            }
        }
    }
    Some(body)
}

/// The query of `operation`'s required parameters, each with a value its
/// schema accepts.
fn required_query(spec: &Value, operation: &Value) -> String {
    let pairs: Vec<String> = operation["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|param| param["in"] == "query" && param["required"] == true)
        .map(|param| {
            let value = match sample(spec, &param["schema"]) {
                Value::String(text) => text,
                other => other.to_string(),
            };
            format!("{}={value}", param["name"].as_str().unwrap_or_default())
        })
        .collect();
    if pairs.is_empty() {
        String::new()
    } else {
        format!("?{}", pairs.join("&"))
    }
}

#[tokio::test]
async fn no_operation_reaches_another_companys_resources() {
    let (server, _campaigns) =
        TestServer::start_with_campaigns(&CAMPAIGNS, "2026-11-23T10:00:00Z", None).await;
    let key_a = server.bootstrap_key();
    let generous = loyalty::resources::companies::model::RateLimits {
        critical: 10_000,
        moderate: 10_000,
        low: 10_000,
    };
    let key_b = server.company_with_limits("rival", Some(generous)).await;
    let fixture = company_a(&server, &key_a).await;
    let spec = server.spec().await;
    let before = everything_of(&server, "demo").await;
    let mut called = 0;
    let mut problems = Vec::new();
    for (template, operations) in spec["paths"].as_object().expect("paths") {
        for (method, operation) in operations.as_object().expect("operations") {
            let params: Vec<&str> = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|param| param["in"] == "path")
                .filter_map(|param| param["name"].as_str())
                .collect();
            let mut path = template.clone();
            for param in &params {
                let Some(value) = fixture.path_value(template, param) else {
                    problems.push(format!(
                        "no resource of Company A names `{{{param}}}` of {template}: add one to the fixture"
                    ));
                    continue;
                };
                path = path.replace(&format!("{{{param}}}"), &value);
            }
            let body = body_for(&spec, operation, &fixture);
            path.push_str(&required_query(&spec, operation));
            let names_a_resource = !params.is_empty()
                || body.as_ref().is_some_and(|body| {
                    body.as_object().is_some_and(|object| {
                        object
                            .keys()
                            .any(|field| fixture.body_value(field).is_some())
                    })
                });
            if !names_a_resource {
                continue;
            }
            called += 1;
            let method = method.to_uppercase();
            let (status, answer) = server.call_as(&method, &path, &key_b, body.clone()).await;
            let text = answer.to_string();
            if let Some(secret) = SECRETS.iter().find(|secret| text.contains(*secret)) {
                problems.push(format!("{method} {path} showed `{secret}`: {text}"));
            }
            let code = answer["code"].as_str().unwrap_or_default();
            let not_found = matches!(status, 404 | 422) && code.ends_with("_not_found");
            if !not_found {
                problems.push(format!(
                    "{method} {path} with {} answered {status}: {text}",
                    body.map(|b| b.to_string()).unwrap_or_default()
                ));
            }
        }
    }
    assert!(called > 40, "only {called} operations name a resource");
    assert!(
        problems.is_empty(),
        "{} of {called} operations:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert_eq!(
        everything_of(&server, "demo").await,
        before,
        "Company A changed"
    );
}
