//! Instant Win over HTTP: every row of the interface's "Interpreting an event
//! response" table, targeting and coupons_desired, recurrence and dates, the
//! list and detail parameters, stock and participation limits under
//! concurrency, and delivery of the prize (also after a restart).

mod common;
#[path = "instant_wins/concurrency.rs"]
mod concurrency;
#[path = "instant_wins/delivery.rs"]
mod delivery;
#[path = "instant_wins/effects.rs"]
mod effects;
#[path = "instant_wins/listing.rs"]
mod listing;
#[path = "instant_wins/operators.rs"]
mod operators;
#[path = "instant_wins/rehearsal.rs"]
mod rehearsal;
#[path = "instant_wins/simulate_property.rs"]
mod simulate_property;
#[path = "instant_wins/simulator.rs"]
mod simulator;
#[path = "instant_wins/taking_part.rs"]
mod taking_part;

use std::path::Path;
use std::time::Duration;

use common::{TestServer, all_at_once};
use loyalty::resources::companies::model::CreatedApiKey;
use loyalty::server::ServerSettings;
use serde_json::{Value, json};

/// The test Company's campaigns (written into the `demo` folder of a temporary
/// campaigns directory, so the bootstrap key reaches them).
const CAMPAIGNS: &[(&str, &str)] = &[
    (
        "prizes.yaml",
        "id: 10\nkind: points\nname: Prize points\npoints: { fixed: 25 }\n",
    ),
    (
        "reward.yaml",
        "id: 11\nkind: reward\nname: { en: Free coffee, es: Café gratis }\n",
    ),
    ("game.yaml", "id: 12\nkind: game\nname: Wheel\n"),
    (
        "visit.yaml",
        "id: 20
kind: instant_win
name: Visit draw
on: { custom_event: visit }
when: customer.loyalty_member
once: day
once_limit: 2
instant_win:
  instant_win_prizes:
    - id: points
      name: { en: 25 points, es: 25 puntos }
      description: Into the wallet
      outcome: { promotion_type: points, promotion_id: 10 }
      weight: 1
",
    ),
    ("scratch.yaml", common::LAST_UNIT_PRIZE),
    (
        "keep.yaml",
        "id: 22
kind: instant_win
name: Keep
on: { custom_event: keep }
once: campaign
once_limit: 100
instant_win:
  instant_win_prizes:
    - id: spin
      name: Spin
      outcome: { promotion_type: game, promotion_id: 12 }
      weight: 1
      stock: 1
      stock_management_strategy: keep_probabilities
",
    ),
    (
        "nothing.yaml",
        "id: 23
kind: instant_win
name: Nothing
on: { custom_event: nothing }
once: campaign
once_limit: 100
instant_win:
  instant_win_prizes:
    - id: none
      name: No prize
      weight: 1
",
    ),
    (
        "targeted.yaml",
        "id: 24
kind: instant_win
name: VIP
on: { trigger: weekly_draw }
select_customers: targeted
coupon: { id: 9001, name: { en: VIP ticket, es: Boleto VIP }, static_code: VIPTICKET }
once: week
once_limit: 1
instant_win:
  instant_win_prizes:
    - id: coffee
      name: Coffee
      outcome: { promotion_type: reward, promotion_id: 11 }
      weight: 1
",
    ),
    (
        "mondays.yaml",
        "id: 25
kind: instant_win
name: Monday carts
on: cart
when: cart.total >= 10.0
available_from: 2026-01-01T00:00:00Z
available_to: 2026-12-31T23:59:59Z
recurrence_type: weekly
recurrence_days: [monday]
locations: [STORE1]
countries: [ES]
once: week
once_limit: 5
instant_win:
  instant_win_prizes:
    - id: points
      name: Points
      outcome: { promotion_type: points, promotion_id: 10 }
      weight: 1
",
    ),
    (
        "limited.yaml",
        "id: 26
kind: instant_win
name: Once a day
on: { custom_event: limited }
once: day
once_limit: 1
instant_win:
  instant_win_prizes:
    - id: spin
      name: Spin
      outcome: { promotion_type: game, promotion_id: 12 }
      weight: 1
",
    ),
    (
        "rush.yaml",
        "id: 28
kind: instant_win
name: Rush
on: { custom_event: rush }
once: day
once_limit: 1
instant_win:
  instant_win_prizes:
    - id: spin
      name: Spin
      outcome: { promotion_type: game, promotion_id: 12 }
      weight: 1
      stock: 20
",
    ),
    (
        "treat.yaml",
        "id: 29
kind: instant_win
name: Treat
on: { custom_event: treat }
once: day
once_limit: 2
instant_win:
  instant_win_prizes:
    - id: coffee
      name: Coffee
      outcome: { promotion_type: reward, promotion_id: 11 }
      weight: 1
",
    ),
    (
        "segments.yaml",
        "tiers:
  - id: gold
    name: Gold
    condition: points_balance >= 1000000
",
    ),
    (
        "gold.yaml",
        "id: 27
kind: instant_win
name: Gold only
on: { custom_event: unused }
tiers: [gold]
countries: [FR]
once: month
once_limit: 3
instant_win:
  instant_win_prizes:
    - id: none
      name: No prize
      weight: 1
",
    ),
];

struct Setup {
    server: TestServer,
    key: CreatedApiKey,
    _campaigns: tempfile::TempDir,
}

fn write_campaigns(dir: &Path) {
    let company = dir.join("demo");
    std::fs::create_dir_all(&company).unwrap();
    for (name, text) in CAMPAIGNS {
        std::fs::write(company.join(name), text).unwrap();
    }
}

async fn setup_with(store: &str, tweak: impl FnOnce(&mut ServerSettings)) -> Setup {
    let campaigns = tempfile::tempdir().unwrap();
    write_campaigns(campaigns.path());
    let mut settings = ServerSettings::for_store(store, common::OPERATOR_TOKEN);
    settings.campaigns = campaigns.path().to_path_buf();
    settings.draw_seed = Some(42);
    // Campaigns are evaluated at the time an event is received: tests move
    // this clock to the dates their events are sent at.
    settings.clock = common::manual_clock("2026-03-02T10:00:00Z");
    tweak(&mut settings);
    let server = TestServer::start_with(settings).await;
    let key = server.bootstrap_key();
    Setup {
        server,
        key,
        _campaigns: campaigns,
    }
}

async fn setup() -> Setup {
    setup_with("mem://", |_| {}).await
}

impl Setup {
    /// Sets the clock to the `date` `body` is sent with, when it has one.
    fn received_at_its_date(&self, body: &Value) {
        if let Some(date) = body["date"].as_str() {
            self.server.set_time(date);
        }
    }

    async fn customer(&self, email: &str) -> String {
        let (status, customer) = self
            .server
            .call_as(
                "POST",
                "/customers",
                &self.key,
                // In Spain, where campaign 25 runs (`countries: [ES]`).
                Some(json!({"email": email, "country": "ES"})),
            )
            .await;
        assert_eq!(status, 200, "{customer}");
        customer["id"].as_str().unwrap().to_string()
    }

    /// `count` new Customers, e-mailed `<prefix><n>@example.com`.
    async fn customers(&self, prefix: &str, count: usize) -> Vec<String> {
        let mut customers = Vec::new();
        for n in 0..count {
            customers.push(self.customer(&format!("{prefix}{n}@example.com")).await);
        }
        customers
    }

    /// Sends a Custom Event of `kind` for every one of `customers` at once;
    /// every answer is a 200 with a draw of Instant Win `rule_id`. How many won.
    async fn simultaneous_winners(&self, customers: &[String], kind: &str, rule_id: i64) -> usize {
        let requests = customers
            .iter()
            .map(|customer| {
                self.server
                    .request_as("POST", "/custom_events", &self.key)
                    .json(&json!({"customer_id": customer, "type": kind}))
            })
            .collect();
        let answers = all_at_once(requests).await;
        let mut winners = 0;
        for (status, answer) in &answers {
            assert_eq!(*status, 200, "{answer}");
            let effect = draw_of(answer, rule_id).expect("everyone takes part");
            if effect.get("prize_name").is_some() {
                winners += 1;
            }
        }
        winners
    }

    async fn event(&self, customer: &str, kind: &str, extra: Value) -> Value {
        let mut body = json!({"customer_id": customer, "type": kind});
        merge(&mut body, extra);
        self.received_at_its_date(&body);
        let (status, answer) = self
            .server
            .call_as("POST", "/custom_events?explain=true", &self.key, Some(body))
            .await;
        assert_eq!(status, 200, "{answer}");
        answer
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        self.server.get_as(path, &self.key).await
    }

    /// Polls `path` until `done` holds (prize delivery is asynchronous).
    async fn eventually(&self, path: &str, done: impl Fn(&Value) -> bool) -> Value {
        for _ in 0..200 {
            let (status, body) = self.get(path).await;
            assert_eq!(status, 200, "{body}");
            if done(&body) {
                return body;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("{path} never satisfied the condition");
    }
}

fn merge(target: &mut Value, extra: Value) {
    if let (Some(target), Value::Object(extra)) = (target.as_object_mut(), extra) {
        target.extend(extra);
    }
}

/// The instant_win effect of `rule` in an event answer.
fn draw_of(answer: &Value, rule: i64) -> Option<&Value> {
    answer["effects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "instant_win" && e["rule_id"] == rule)
}

fn reason_of(answer: &Value, rule: i64) -> String {
    answer["explanations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["rule_id"] == rule)
        .and_then(|e| e["reason"].as_str())
        .unwrap_or_default()
        .to_string()
}
