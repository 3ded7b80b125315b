//! Instant Win over HTTP: every row of the interface's "Interpreting an event
//! response" table, targeting and coupons_desired, recurrence and dates, the
//! list and detail parameters, stock and participation limits under
//! concurrency, and delivery of the prize (also after a restart).

mod common;
#[path = "instant_wins/rehearsal.rs"]
mod rehearsal;

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

#[tokio::test]
async fn a_points_prize_is_in_the_balance_the_response_leaves() {
    // Held delivery: the points cannot come from the outbox.
    let setup = setup_with("mem://", |settings| settings.deliver_prizes = false).await;
    let customer = setup.customer("win@example.com").await;
    let answer = setup.event(&customer, "visit", json!({})).await;
    let effect = draw_of(&answer, 20).expect("one instant_win effect");
    insta::assert_json_snapshot!("win_effect", effect);
    assert_eq!(
        answer["effects"].as_array().unwrap().len(),
        1,
        "exactly one effect"
    );
    assert_eq!(
        answer["custom_event"]["points_earned"], 0,
        "a prize is not points earned by campaigns"
    );
    let (_, balance) = setup.get(&format!("/customers/{customer}/points")).await;
    assert_eq!(balance["points"], 25);
    let (_, ledger) = setup
        .get(&format!("/points/transactions?customer_id={customer}"))
        .await;
    let entry = &ledger["transactions"][0];
    assert_eq!(
        (&entry["reason"], &entry["rule_id"], &entry["points"]),
        (&json!("instant_win"), &json!(10), &json!(25)),
        "{ledger}"
    );
    let draws = setup
        .server
        .running
        .services
        .store()
        .draws("demo", None)
        .await
        .unwrap();
    assert_eq!(entry["draw_id"], draws[0]["draw_id"], "{ledger}");
    let store = setup.server.running.services.store();
    let outbox = store.raw_documents("prize_outbox", "demo").await.unwrap();
    assert!(outbox.is_empty(), "nothing to deliver: {outbox:?}");
}

#[tokio::test]
async fn no_prize_is_an_effect_without_prize_data() {
    let setup = setup().await;
    let customer = setup.customer("none@example.com").await;
    let answer = setup.event(&customer, "nothing", json!({})).await;
    let effect = draw_of(&answer, 23).expect("the Customer took part");
    assert_eq!(effect["winned_prize_index"], 0);
    for field in ["prize_name", "prize_description", "prize_rule_id"] {
        assert!(
            effect.get(field).is_none(),
            "{field} only on a win: {effect}"
        );
    }
    assert_eq!(
        (
            &effect["value"],
            &effect["effect_type"],
            &effect["distribution_type"]
        ),
        (&json!(0.0), &json!(""), &json!(""))
    );
    assert_eq!(effect["select_customers"], "loyalty");
    assert!(effect.get("coupon_info").is_none() && effect.get("campaign_history_id").is_none());
    let store = setup.server.running.services.store();
    let outbox = store.raw_documents("prize_outbox", "demo").await.unwrap();
    assert!(outbox.is_empty(), "nothing to deliver: {outbox:?}");
    assert_eq!(store.draws("demo", None).await.unwrap().len(), 1);
}

#[tokio::test]
async fn unmet_conditions_and_reached_limits_return_no_effect() {
    let setup = setup().await;
    let customer = setup.customer("limit@example.com").await;
    let date = json!({"date": "2026-03-02T10:00:00Z"});
    for _ in 0..2 {
        let answer = setup.event(&customer, "visit", date.clone()).await;
        assert!(draw_of(&answer, 20).is_some());
    }
    let third = setup.event(&customer, "visit", date.clone()).await;
    assert!(
        draw_of(&third, 20).is_none(),
        "once_limit 2 per day reached"
    );
    assert_eq!(
        reason_of(&third, 20),
        "participation limit reached: 2 of 2 per day"
    );
    let next_day = setup
        .event(&customer, "visit", json!({"date": "2026-03-03T10:00:00Z"}))
        .await;
    assert!(draw_of(&next_day, 20).is_some(), "a new day, a new period");

    // Victory condition unmet: a Customer who is not a loyalty member.
    let (status, outsider) = setup
        .server
        .call_as(
            "POST",
            "/customers",
            &setup.key,
            Some(json!({"email": "outsider@example.com", "enroll": false})),
        )
        .await;
    assert_eq!(status, 200, "{outsider}");
    let answer = setup
        .event(outsider["id"].as_str().unwrap(), "visit", json!({}))
        .await;
    assert!(draw_of(&answer, 20).is_none());
    assert!(reason_of(&answer, 20).starts_with("condition is false"));
}

#[tokio::test]
async fn remove_prize_passes_an_exhausted_prize_to_no_prize() {
    let setup = setup().await;
    let first = setup.customer("first@example.com").await;
    let second = setup.customer("second@example.com").await;
    let won = setup.event(&first, "scratch", json!({})).await;
    let won = draw_of(&won, 21).unwrap();
    assert_eq!(
        (&won["prize_name"], &won["prize_rule_id"]),
        (&json!("Coffee"), &json!(11))
    );
    let after = setup.event(&second, "scratch", json!({})).await;
    let after = draw_of(&after, 21).expect("still a participation");
    assert!(after.get("prize_name").is_none(), "{after}");
    assert_eq!(after["winned_prize_index"], 1, "the No Prize entry");
    let (_, detail) = setup.get("/instant_wins/21").await;
    let prizes = &detail["instant_win"]["instant_win_prizes"];
    assert_eq!(prizes[0]["stock"], 0);
    assert_eq!(prizes[1]["stock"], -1);
}

#[tokio::test]
async fn keep_probabilities_draws_an_exhausted_prize_without_giving_it() {
    let setup = setup().await;
    let customer = setup.customer("keep@example.com").await;
    let first = setup.event(&customer, "keep", json!({})).await;
    assert_eq!(draw_of(&first, 22).unwrap()["prize_rule_id"], 12);
    let second = setup.event(&customer, "keep", json!({})).await;
    let second = draw_of(&second, 22).expect("a participation");
    assert_eq!(
        second["winned_prize_index"], 0,
        "the exhausted prize was drawn"
    );
    assert!(second.get("prize_name").is_none(), "but not won: {second}");
    let games = setup
        .eventually(&format!("/games?customer_id={customer}"), |b| {
            b["games"][0]["available_participations"] == 1
        })
        .await;
    assert_eq!(games["games"][0]["id"], 12);
}

#[tokio::test]
async fn targeted_instant_wins_need_the_voucher_in_coupons_desired() {
    let setup = setup().await;
    let holder = setup.customer("holder@example.com").await;
    let stranger = setup.customer("stranger@example.com").await;
    let vouchers = setup
        .server
        .back_office()
        .await
        .assign_instant_win("demo", 24, std::slice::from_ref(&holder))
        .await
        .unwrap();
    let voucher = &vouchers[0];
    assert!(voucher.code.starts_with("VIPTICKET-"), "{}", voucher.code);
    let trigger = |customer: &str, coupons: Value| json!({"customer_id": customer, "type": "weekly_draw", "coupons_desired": coupons, "date": "2026-03-02T10:00:00Z"});
    let call = |body: Value| {
        let setup = &setup;
        let server = &setup.server;
        let key = &setup.key;
        async move {
            setup.received_at_its_date(&body);
            let (status, answer) = server
                .call_as("POST", "/trigger?explain=true", key, Some(body))
                .await;
            assert_eq!(status, 200, "{answer}");
            answer
        }
    };
    let without = call(trigger(&holder, json!([]))).await;
    assert!(draw_of(&without, 24).is_none(), "the Voucher was not named");
    assert!(reason_of(&without, 24).contains("coupons_desired"));
    let other_code = call(trigger(&holder, json!(["SOMETHING-ELSE"]))).await;
    assert!(draw_of(&other_code, 24).is_none());
    let stranger_answer = call(trigger(&stranger, json!(["all"]))).await;
    assert!(draw_of(&stranger_answer, 24).is_none(), "no Voucher");
    assert!(reason_of(&stranger_answer, 24).contains("holds no Voucher"));

    let by_code = call(trigger(&holder, json!([voucher.code]))).await;
    let effect = draw_of(&by_code, 24).expect("the Voucher code lets the holder take part");
    assert_eq!(effect["select_customers"], "targeted");
    assert_eq!(
        effect["campaign_history_id"],
        voucher.campaign_history_id.as_deref().unwrap()
    );
    assert_eq!(
        effect["coupon_info"],
        json!({
            "voucher_id": voucher.id,
            "voucher_code": voucher.code,
            "coupon_id": 9001,
            "coupon_name": "VIP ticket",
            "static_code": "VIPTICKET"
        })
    );
    let again = call(trigger(&holder, json!(["all"]))).await;
    assert!(draw_of(&again, 24).is_none(), "once a week");
    let next_week = call(json!({"customer_id": holder, "type": "weekly_draw", "coupons_desired": ["all"], "date": "2026-03-09T10:00:00Z"})).await;
    assert!(
        draw_of(&next_week, 24).is_some(),
        "`all` names every Voucher"
    );
    let rewards = setup
        .eventually(
            &format!("/rewards/transactions?customer_id={holder}"),
            |b| b["reward_transactions"].as_array().unwrap().len() == 2,
        )
        .await;
    assert_eq!(rewards["reward_transactions"][0]["reward_id"], 11);
    assert_eq!(rewards["reward_transactions"][0]["state"], "available");

    // Assigning again keeps the Voucher the Customer holds.
    let again = setup
        .server
        .back_office()
        .await
        .assign_instant_win("demo", 24, std::slice::from_ref(&holder))
        .await
        .unwrap();
    assert_eq!(again[0].code, voucher.code);
    let loyalty = setup
        .server
        .back_office()
        .await
        .assign_instant_win("demo", 20, std::slice::from_ref(&holder))
        .await
        .unwrap_err();
    assert_eq!(loyalty.code.code(), "invalid_request");
}

#[tokio::test]
async fn a_targeted_voucher_with_uses_gives_that_many_draws_even_at_once() {
    let campaigns = tempfile::tempdir().unwrap();
    let company = campaigns.path().join("demo");
    std::fs::create_dir_all(&company).unwrap();
    std::fs::write(
        company.join("coffee.yaml"),
        "id: 11\nkind: reward\nname: Coffee\n",
    )
    .unwrap();
    std::fs::write(
        company.join("tickets.yaml"),
        "id: 30
kind: instant_win
name: Two tickets
on: { trigger: spin }
select_customers: targeted
coupon: { id: 9030, name: Two spins, static_code: TWOSPINS, uses_per_voucher: 2 }
once: day
once_limit: 10
instant_win:
  instant_win_prizes:
    - { id: coffee, name: Coffee, outcome: { promotion_type: reward, promotion_id: 11 }, weight: 1 }
",
    )
    .unwrap();
    let mut settings = ServerSettings::for_store("mem://", common::OPERATOR_TOKEN);
    settings.campaigns = campaigns.path().to_path_buf();
    settings.clock = common::manual_clock("2026-03-02T10:00:00Z");
    let server = TestServer::start_with(settings).await;
    let key = server.bootstrap_key();
    let (_, created) = server
        .call_as(
            "POST",
            "/customers",
            &key,
            Some(json!({"email": "t@example.com"})),
        )
        .await;
    let holder = created["id"].as_str().unwrap().to_string();
    let voucher = server
        .back_office()
        .await
        .assign_instant_win("demo", 30, std::slice::from_ref(&holder))
        .await
        .unwrap()
        .remove(0);
    assert_eq!(voucher.uses_left, 2);
    let spin = json!({"customer_id": holder, "type": "spin", "coupons_desired": [voucher.code]});
    let requests = (0..6)
        .map(|_| {
            server
                .request_as("POST", "/trigger?explain=true", &key)
                .json(&spin)
        })
        .collect();
    let answers = all_at_once(requests).await;
    assert!(
        answers.iter().all(|(status, _)| *status == 200),
        "{answers:?}"
    );
    let drawn = answers
        .iter()
        .filter(|(_, answer)| draw_of(answer, 30).is_some())
        .count();
    assert_eq!(drawn, 2, "two uses, two draws: {answers:?}");
    let (_, left_out) = answers
        .iter()
        .find(|(_, answer)| draw_of(answer, 30).is_none())
        .unwrap();
    assert!(
        reason_of(left_out, 30).contains("has given its 2 draws"),
        "{left_out}"
    );
    let (status, read) = server
        .get_as(&format!("/vouchers?customer_id={holder}"), &key)
        .await;
    assert_eq!(status, 200, "{read}");
    assert_eq!(read["vouchers"][0]["uses_left"], 0);
    assert_eq!(read["vouchers"][0]["state"], "redeemed");
}

#[tokio::test]
async fn recurrence_dates_and_locations_decide_who_takes_part() {
    let setup = setup().await;
    let customer = setup.customer("cart@example.com").await;
    let cart = |code: &str, date: &str, location: &str, total: f64| {
        json!({
            "code": code, "customer_id": customer, "date": date, "location_code": location,
            "lines": [{"product_code": "X", "quantity": 1, "price": total}]
        })
    };
    let send = |body: Value| {
        let setup = &setup;
        let server = &setup.server;
        let key = &setup.key;
        async move {
            setup.received_at_its_date(&body);
            let (status, answer) = server
                .call_as("POST", "/carts/realtime?explain=true", key, Some(body))
                .await;
            assert_eq!(status, 200, "{answer}");
            answer
        }
    };
    // 2026-03-02 is a Monday, 2026-03-03 a Tuesday.
    let monday = send(cart("C1", "2026-03-02T10:00:00Z", "STORE1", 12.0)).await;
    assert!(draw_of(&monday, 25).is_some(), "{monday}");
    assert_eq!(monday["effects"].as_array().unwrap().len(), 1);
    assert_eq!(
        monday["cart"]["discount_total"], 0.0,
        "an Instant Win never changes line values"
    );
    let tuesday = send(cart("C2", "2026-03-03T10:00:00Z", "STORE1", 12.0)).await;
    assert!(draw_of(&tuesday, 25).is_none());
    assert_eq!(
        reason_of(&tuesday, 25),
        "runs only on monday, and it is tuesday"
    );
    let elsewhere = send(cart("C3", "2026-03-02T11:00:00Z", "STORE9", 12.0)).await;
    assert!(draw_of(&elsewhere, 25).is_none());
    assert!(reason_of(&elsewhere, 25).contains("STORE9"));
    let small = send(cart("C4", "2026-03-02T12:00:00Z", "STORE1", 5.0)).await;
    assert!(draw_of(&small, 25).is_none(), "victory condition unmet");
    let next_year = send(cart("C5", "2027-03-01T10:00:00Z", "STORE1", 12.0)).await;
    assert!(
        draw_of(&next_year, 25).is_none(),
        "outside the availability dates"
    );
    assert!(reason_of(&next_year, 25).starts_with("not available since"));
    // A Customer of another country: a store outside the catalogue has no
    // country, so the Customer's decides.
    let (_, portuguese) = setup
        .server
        .call_as(
            "POST",
            "/customers",
            &setup.key,
            Some(json!({"email": "pt@example.com", "country": "PT"})),
        )
        .await;
    let abroad = send(json!({
        "code": "C6", "customer_id": portuguese["id"], "date": "2026-03-02T13:00:00Z",
        "location_code": "STORE1", "lines": [{"product_code": "X", "quantity": 1, "price": 12.0}]
    }))
    .await;
    assert!(draw_of(&abroad, 25).is_none(), "{abroad}");
    assert!(reason_of(&abroad, 25).contains("not in PT"), "{abroad}");
}

#[tokio::test]
async fn simulate_draws_but_consumes_nothing() {
    let setup = setup().await;
    let customer = setup.customer("sim@example.com").await;
    let body = json!({
        "code": "SIM", "customer_id": customer, "date": "2026-03-02T10:00:00Z", "location_code": "STORE1",
        "lines": [{"product_code": "X", "quantity": 1, "price": 20.0}]
    });
    for _ in 0..6 {
        let (status, answer) = setup
            .server
            .call_as("POST", "/carts/simulate", &setup.key, Some(body.clone()))
            .await;
        assert_eq!(status, 200, "{answer}");
        assert!(
            draw_of(&answer, 25).is_some(),
            "simulated draws never use up the 5 participations"
        );
    }
    let draws = setup
        .server
        .running
        .services
        .store()
        .draws("demo", Some(&customer))
        .await
        .unwrap();
    assert!(draws.is_empty(), "{draws:?}");
    let (_, listed) = setup
        .get(&format!("/instant_wins/25?customer_id={customer}"))
        .await;
    assert_eq!(listed["remaining_participations"], 5);
}

#[tokio::test]
async fn every_draw_is_stored_for_audit() {
    let setup = setup().await;
    let customer = setup.customer("audit@example.com").await;
    setup.event(&customer, "scratch", json!({})).await;
    setup.event(&customer, "scratch", json!({})).await;
    let draws = setup
        .server
        .running
        .services
        .store()
        .draws("demo", Some(&customer))
        .await
        .unwrap();
    assert_eq!(draws.len(), 2);
    let first = &draws[0];
    assert_eq!(first["rule_id"], 21);
    assert_eq!(first["weights"], json!([1.0, 0.0]));
    assert_eq!(
        first["stock_seen"],
        json!([{"prize_id": "coffee", "stock": 1, "given": 0}])
    );
    assert_eq!(first["prize"]["prize_id"], "coffee");
    assert!(first["random"].as_f64().unwrap() < 1.0);
    assert!(
        first["source"]
            .as_str()
            .unwrap()
            .starts_with("custom_event:")
    );
    let second = &draws[1];
    assert_eq!(
        second["weights"],
        json!([0.0, 1.0]),
        "the prize ran out: remove_prize"
    );
    assert_eq!(second["prize"], Value::Null);
}

#[tokio::test]
async fn many_customers_racing_for_the_last_unit_leave_exactly_one_winner() {
    let setup = setup().await;
    let customers = setup.customers("racer", 12).await;
    let winners = setup.simultaneous_winners(&customers, "scratch", 21).await;
    assert_eq!(winners, 1, "stock 1: one winner");
    let (_, detail) = setup.get("/instant_wins/21").await;
    assert_eq!(detail["instant_win"]["instant_win_prizes"][0]["stock"], 0);
}

/// A stock spread over several counter shards still gives exactly its units
/// when more Customers than units draw at once, and nothing after.
#[tokio::test]
async fn a_sharded_stock_gives_exactly_its_units_to_simultaneous_winners() {
    let setup = setup().await;
    let customers = setup.customers("rusher", 45).await;
    let winners = setup
        .simultaneous_winners(&customers[..40], "rush", 28)
        .await;
    assert_eq!(winners, 20, "stock 20: twenty winners out of 40");
    for customer in &customers[40..] {
        let answer = setup.event(customer, "rush", json!({})).await;
        let effect = draw_of(&answer, 28).expect("takes part");
        assert!(effect.get("prize_name").is_none(), "{effect}");
    }
    let (_, detail) = setup.get("/instant_wins/28").await;
    assert_eq!(detail["instant_win"]["instant_win_prizes"][0]["stock"], 0);
}

#[tokio::test]
async fn simultaneous_events_of_one_customer_respect_once_limit() {
    let setup = setup().await;
    let customer = setup.customer("eager@example.com").await;
    // Warm the path once, so the burst's requests overlap instead of queueing
    // behind the first request's one-time work.
    setup.event(&customer, "warm_up", json!({})).await;
    let requests = (0..30)
        .map(|_| {
            setup
                .server
                .request_as("POST", "/custom_events?explain=true", &setup.key)
                .json(&json!({"customer_id": customer, "type": "limited"}))
        })
        .collect();
    let answers = all_at_once(requests).await;
    let mut participations = 0;
    for (status, answer) in &answers {
        assert_eq!(*status, 200, "{answer}");
        participations += usize::from(draw_of(answer, 26).is_some());
    }
    assert_eq!(participations, 1, "once_limit 1 per day");
    let games = setup
        .eventually(&format!("/games?customer_id={customer}"), |b| {
            b["games"][0]["available_participations"] == 1
        })
        .await;
    assert_eq!(games["games"][0]["available_participations"], 1);
}

#[tokio::test]
async fn the_list_and_detail_take_every_parameter() {
    let setup = setup().await;
    let (status, created) = setup
        .server
        .call_as(
            "POST",
            "/customers",
            &setup.key,
            Some(json!({"email": "lister@example.com", "code": "LIST-1"})),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let customer = created["id"].as_str().unwrap().to_string();
    let (status, all) = setup.get("/instant_wins").await;
    assert_eq!(status, 200, "{all}");
    let ids = |page: &Value| -> Vec<i64> {
        page["instant_wins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(ids(&all), [20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
    assert!(
        all["instant_wins"][0]
            .get("remaining_participations")
            .is_none()
    );
    insta::assert_json_snapshot!("instant_win_detail_25", all["instant_wins"][5]);

    let (_, first) = setup.get("/instant_wins?per_page=3").await;
    assert_eq!(ids(&first), [20, 21, 22]);
    assert_eq!(first["next_token_starts_after"], "22");
    let (_, second) = setup
        .get("/instant_wins?per_page=3&starting_after=22")
        .await;
    assert_eq!(ids(&second), [23, 24, 25]);
    let (_, third) = setup
        .get("/instant_wins?per_page=3&starting_after=25")
        .await;
    assert_eq!(ids(&third), [26, 27, 28]);
    assert_eq!(third["next_token_starts_after"], "28");
    let (_, last) = setup
        .get("/instant_wins?per_page=3&starting_after=28")
        .await;
    assert_eq!(ids(&last), [29]);
    assert!(last.get("next_token_starts_after").is_none());

    let (_, targeted) = setup.get("/instant_wins?campaign_audience=targeted").await;
    assert_eq!(ids(&targeted), [24]);
    let (_, at_store) = setup.get("/instant_wins?location_code=STORE1").await;
    assert!(ids(&at_store).contains(&25));
    let (_, elsewhere) = setup.get("/instant_wins?location_id=STORE9").await;
    assert!(!ids(&elsewhere).contains(&25), "25 runs at STORE1 only");
    let (_, france) = setup.get("/instant_wins?countries=fr,it").await;
    assert!(ids(&france).contains(&27) && !ids(&france).contains(&25));
    let (_, silver) = setup.get("/instant_wins?tier_id=silver").await;
    assert!(!ids(&silver).contains(&27));
    let (_, gold) = setup.get("/instant_wins?tier_id=gold").await;
    assert!(ids(&gold).contains(&27));

    // For a Customer: loyalty campaigns plus the targeted ones they hold.
    setup.event(&customer, "visit", json!({})).await;
    let (_, mine) = setup
        .get(&format!("/instant_wins?customer_id={customer}"))
        .await;
    assert!(!ids(&mine).contains(&24), "no Voucher yet");
    assert_eq!(mine["instant_wins"][0]["remaining_participations"], 1);
    let vouchers = setup
        .server
        .back_office()
        .await
        .assign_instant_win("demo", 24, std::slice::from_ref(&customer))
        .await
        .unwrap();
    assert_eq!(
        vouchers[0].coupon_name, "VIP ticket",
        "in the default language"
    );
    let (_, held) = setup
        .get("/instant_wins?customer_code=LIST-1&campaign_audience=targeted")
        .await;
    assert_eq!(ids(&held), [24]);
    assert_eq!(
        held["instant_wins"][0]["loyalty_rule_history_id"],
        vouchers[0].loyalty_rule_history_id.as_deref().unwrap()
    );
    assert_eq!(held["instant_wins"][0]["remaining_participations"], 1);

    // Detail by every search_by.
    let voucher = &vouchers[0];
    for path in [
        "/instant_wins/24".to_string(),
        "/instant_wins/24?search_by=loyalty_rule_id".to_string(),
        format!(
            "/instant_wins/{}?search_by=loyalty_rule_history_id",
            voucher.loyalty_rule_history_id.as_deref().unwrap()
        ),
        format!(
            "/instant_wins/{}?search_by=campaign_history_id",
            voucher.campaign_history_id.as_deref().unwrap()
        ),
        "/instant_wins/VIPTICKET?search_by=static_code".to_string(),
    ] {
        let (status, detail) = setup.get(&path).await;
        assert_eq!(
            (status, &detail["id"]),
            (200, &json!(24)),
            "{path}: {detail}"
        );
    }
    let (_, by_assignment) = setup
        .get(&format!(
            "/instant_wins/{}?search_by=loyalty_rule_history_id",
            voucher.loyalty_rule_history_id.as_deref().unwrap()
        ))
        .await;
    assert_eq!(
        by_assignment["remaining_participations"], 1,
        "the assignment implies its Customer"
    );
    let (_, with_customer) = setup
        .get(&format!("/instant_wins/20?customer_id={customer}"))
        .await;
    assert_eq!(with_customer["remaining_participations"], 1);
    let (status, _) = setup.get("/instant_wins/25?location_code=STORE1").await;
    assert_eq!(status, 200);
    let (status, body) = setup.get("/instant_wins/25?location_code=STORE9").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("instant_win_not_found"))
    );
    let (status, _) = setup.get("/instant_wins/25?countries=ES").await;
    assert_eq!(status, 200);

    // Bad input: the documented shape, nothing changed.
    for (path, code, expected) in [
        ("/instant_wins/999", 404, "instant_win_not_found"),
        ("/instant_wins/10", 404, "instant_win_not_found"),
        (
            "/instant_wins/NOPE?search_by=static_code",
            404,
            "instant_win_not_found",
        ),
        ("/instant_wins/x?search_by=name", 400, "invalid_request"),
        (
            "/instant_wins?campaign_audience=everyone",
            400,
            "invalid_request",
        ),
        ("/instant_wins?per_page=0", 400, "invalid_request"),
        ("/instant_wins?starting_after=abc", 400, "invalid_request"),
        (
            "/instant_wins?customer_id=a&customer_code=b",
            404,
            "customer_not_found",
        ),
        (
            "/instant_wins?customer_id=nobody",
            404,
            "customer_not_found",
        ),
    ] {
        let (status, body) = setup.get(path).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (code, Some(expected)),
            "{path}: {body}"
        );
    }
}

/// The Reward transactions listed for `customer`.
fn rewards_of(customer: &str) -> String {
    format!("/rewards/transactions?customer_id={customer}")
}

/// How many Reward transactions a listing holds.
fn reward_count(listing: &Value) -> usize {
    listing["reward_transactions"].as_array().unwrap().len()
}

#[tokio::test]
async fn a_prize_won_before_a_crash_is_delivered_after_the_restart() {
    let data = tempfile::tempdir().unwrap();
    let store = format!("surrealkv://{}", data.path().join("store").display());
    let held = setup_with(&store, |settings| settings.deliver_prizes = false).await;
    let customer = held.customer("restart@example.com").await;
    let answer = held.event(&customer, "treat", json!({})).await;
    assert_eq!(draw_of(&answer, 29).unwrap()["prize_rule_id"], 11);
    let (_, rewards) = held.get(&rewards_of(&customer)).await;
    assert_eq!(
        reward_count(&rewards),
        0,
        "delivery is held: the prize waits in the outbox"
    );
    let campaigns = held._campaigns;
    held.server.running.shutdown().await.unwrap();

    let mut settings = ServerSettings::for_store(&store, common::OPERATOR_TOKEN);
    settings.campaigns = campaigns.path().to_path_buf();
    let restarted = TestServer::start_with(settings).await;
    let key = {
        // The restarted store keeps the demo key; make a new one to call it.
        restarted
            .back_office()
            .await
            .create_key(loyalty::resources::companies::keys::NewKey {
                company: "demo".into(),
                description: "after restart".into(),
                enabled: true,
            })
            .await
            .unwrap()
    };
    let mut delivered = false;
    for _ in 0..200 {
        let (_, rewards) = restarted.get_as(&rewards_of(&customer), &key).await;
        if reward_count(&rewards) == 1 {
            delivered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(
        delivered,
        "the outbox delivered the prize after the restart"
    );
    // Delivery is idempotent: running it again changes nothing.
    restarted
        .running
        .services
        .deliver_pending_prizes()
        .await
        .unwrap();
    let (_, rewards) = restarted.get_as(&rewards_of(&customer), &key).await;
    assert_eq!(reward_count(&rewards), 1);
    restarted.running.shutdown().await.unwrap();
}

#[tokio::test]
async fn prizes_won_together_are_delivered_together_and_each_exactly_once() {
    let setup = setup_with("mem://", |settings| settings.deliver_prizes = false).await;
    let winners = setup.customers("batch", 4).await;
    for winner in &winners {
        let answer = setup.event(winner, "treat", json!({})).await;
        assert!(draw_of(&answer, 29).unwrap().get("prize_name").is_some());
    }
    let services = &setup.server.running.services;
    let store = services.store();
    let pending = store.pending_prizes(100).await.unwrap();
    assert_eq!(pending.len(), 4);
    // Another process delivers one of them meanwhile: delivering the four
    // together refuses and writes nothing.
    store
        .deliver_prize(&pending[0], None, loyalty::common::time::Timestamp::now())
        .await
        .unwrap();
    let together: Vec<_> = pending.iter().map(|prize| (prize.clone(), None)).collect();
    let refused = store
        .deliver_prizes("demo", &together, loyalty::common::time::Timestamp::now())
        .await
        .unwrap_err();
    assert_eq!(
        refused.code,
        loyalty::error::ErrorCode::ConcurrentModification
    );
    for prize in &pending[1..] {
        let (_, rewards) = setup.get(&rewards_of(&prize.customer_id)).await;
        assert_eq!(reward_count(&rewards), 0, "the refused batch wrote nothing");
    }
    let delivered = services.deliver_pending_prizes().await.unwrap();
    assert_eq!(delivered, 3, "the three left are delivered");
    for winner in &winners {
        let (_, rewards) = setup.get(&rewards_of(winner)).await;
        assert_eq!(reward_count(&rewards), 1, "{winner}: one prize, once");
    }
    assert_eq!(services.deliver_pending_prizes().await.unwrap(), 0);
}

#[tokio::test]
async fn a_prize_follows_its_winner_into_a_merge_and_is_dropped_for_a_deleted_one() {
    let setup = setup_with("mem://", |settings| settings.deliver_prizes = false).await;
    let winner = setup.customer("dup@example.com").await;
    let survivor = setup.customer("main@example.com").await;
    let gone = setup.customer("gone@example.com").await;
    let answer = setup.event(&winner, "treat", json!({})).await;
    assert!(draw_of(&answer, 29).unwrap().get("prize_name").is_some());
    let answer = setup.event(&gone, "treat", json!({})).await;
    assert!(draw_of(&answer, 29).unwrap().get("prize_name").is_some());
    let (status, merged) = setup
        .server
        .call_as(
            "POST",
            "/customers/transfer",
            &setup.key,
            Some(json!({"from_customer_id": winner, "to_customer_id": survivor})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    let (status, deleted) = setup
        .server
        .call_as("DELETE", &format!("/customers/{gone}"), &setup.key, None)
        .await;
    assert_eq!(status, 200, "{deleted}");

    let delivered = setup
        .server
        .running
        .services
        .deliver_pending_prizes()
        .await
        .unwrap();
    assert_eq!(
        delivered, 1,
        "the prize of the anonymized Customer is not sent"
    );
    let (_, rewards) = setup.get(&rewards_of(&survivor)).await;
    assert_eq!(
        reward_count(&rewards),
        1,
        "the survivor of the merge gets the prize"
    );
    let given = setup
        .server
        .running
        .services
        .store()
        .raw_documents("reward_transaction", "demo")
        .await
        .unwrap();
    assert_eq!(given.len(), 1, "an anonymized Customer gets nothing");
    assert_eq!(given[0]["customer_id"], survivor.as_str());
    let again = setup
        .server
        .running
        .services
        .deliver_pending_prizes()
        .await
        .unwrap();
    assert_eq!(again, 0, "nothing is left pending");
}

#[tokio::test]
async fn a_merge_moves_rewards_game_participations_and_vouchers_and_an_unmerge_returns_them() {
    let setup = setup().await;
    let dup = setup.customer("dup2@example.com").await;
    let main = setup.customer("main2@example.com").await;
    setup.event(&dup, "scratch", json!({})).await;
    setup.event(&dup, "limited", json!({})).await;
    setup
        .server
        .back_office()
        .await
        .assign_instant_win("demo", 24, std::slice::from_ref(&dup))
        .await
        .unwrap();
    let games_of = |customer: &str| format!("/games?customer_id={customer}");
    setup
        .eventually(&rewards_of(&dup), |b| {
            b["reward_transactions"].as_array().unwrap().len() == 1
        })
        .await;
    setup
        .eventually(&games_of(&dup), |b| {
            b["games"][0]["available_participations"] == 1
        })
        .await;

    let (status, merged) = setup
        .server
        .call_as(
            "POST",
            "/customers/transfer",
            &setup.key,
            Some(json!({"from_customer_id": dup, "to_customer_id": main})),
        )
        .await;
    assert_eq!(status, 200, "{merged}");
    let (_, rewards) = setup.get(&rewards_of(&main)).await;
    assert_eq!(rewards["reward_transactions"].as_array().unwrap().len(), 1);
    let (_, rewards) = setup.get(&rewards_of(&dup)).await;
    assert!(
        rewards["reward_transactions"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let (_, games) = setup.get(&games_of(&main)).await;
    assert_eq!(games["games"][0]["available_participations"], 1);
    let (_, held) = setup
        .get(&format!(
            "/instant_wins?customer_id={main}&campaign_audience=targeted"
        ))
        .await;
    assert_eq!(held["instant_wins"][0]["id"], 24, "{held}");

    let (status, unmerged) = setup
        .server
        .call_as(
            "POST",
            &format!("/customers/{dup}/unmerge"),
            &setup.key,
            None,
        )
        .await;
    assert_eq!(status, 200, "{unmerged}");
    let (_, rewards) = setup.get(&rewards_of(&dup)).await;
    assert_eq!(rewards["reward_transactions"].as_array().unwrap().len(), 1);
    let (_, games) = setup.get(&games_of(&dup)).await;
    assert_eq!(games["games"][0]["available_participations"], 1);
    let (_, games) = setup.get(&games_of(&main)).await;
    assert_eq!(games["games"][0]["available_participations"], 0);
    let (_, held) = setup
        .get(&format!(
            "/instant_wins?customer_id={dup}&campaign_audience=targeted"
        ))
        .await;
    assert_eq!(held["instant_wins"][0]["id"], 24, "{held}");
}

#[test]
fn authors_simulate_draws_before_launch() {
    let dir = tempfile::tempdir().unwrap();
    write_campaigns(dir.path());
    let scratch = dir.path().join("demo").join("scratch.yaml");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_loyalty"))
            .args(["campaigns", "draws"])
            .args(args)
            .output()
            .unwrap()
    };
    let output = run(&[
        scratch.to_str().unwrap(),
        "--runs",
        "500",
        "--seed",
        "3",
        "--json",
    ]);
    assert!(output.status.success(), "{output:?}");
    let simulation: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(simulation["runs"], 500);
    assert_eq!(simulation["prizes"][0]["won"], 1, "stock 1: one win");
    assert_eq!(
        simulation["prizes"][0]["ran_out_at"], 1,
        "weight 1: the first draw wins it"
    );
    assert_eq!(
        simulation["prizes"][1]["drawn"], 499,
        "then everything is No Prize"
    );
    let again = run(&[
        scratch.to_str().unwrap(),
        "--runs",
        "500",
        "--seed",
        "3",
        "--json",
    ]);
    assert_eq!(
        again.stdout, output.stdout,
        "the same seed gives the same draws"
    );

    let text = run(&[
        "campaigns/demo/campaigns/scratch-and-win.yaml",
        "--runs",
        "2000",
    ]);
    assert!(text.status.success(), "{text:?}");
    let shown = String::from_utf8(text.stdout).unwrap();
    assert!(shown.contains("consistent with the weights"), "{shown}");

    let not_a_draw = run(&[dir
        .path()
        .join("demo")
        .join("reward.yaml")
        .to_str()
        .unwrap()]);
    assert!(!not_a_draw.status.success());
    assert!(String::from_utf8_lossy(&not_a_draw.stderr).contains("not an instant_win"));
}

mod simulate_property {
    //! Property test: any sequence of simulated carts, drawing or not, leaves
    //! the store exactly as it was.

    use super::*;
    use proptest::prelude::*;

    async fn run(carts: Vec<(u32, u32, bool)>) -> Result<(), TestCaseError> {
        let setup = setup().await;
        let customer = setup.customer("sim-prop@example.com").await;
        let store = setup.server.running.services.store();
        let tables = [
            "cart",
            "ledger_write",
            "iw_draws",
            "customer_state",
            "iw_given",
            "prize_outbox",
        ];
        for (n, (day, cents, at_store)) in carts.into_iter().enumerate() {
            let body = json!({
                "customer_id": customer, "code": format!("SIM-{n}"),
                "date": format!("2026-03-{:02}T10:00:00Z", day),
                "location_code": if at_store { "STORE1" } else { "STORE9" },
                "lines": [{"product_code": "X", "quantity": 1, "price": f64::from(cents) / 100.0}]
            });
            setup.received_at_its_date(&body);
            let (status, answer) = setup
                .server
                .call_as("POST", "/carts/simulate", &setup.key, Some(body))
                .await;
            prop_assert_eq!(status, 200, "{}", answer);
        }
        for table in tables {
            let documents = store.raw_documents(table, "demo").await.unwrap();
            prop_assert!(documents.is_empty(), "{} holds {:?}", table, documents);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(8))]

        #[test]
        fn simulated_carts_never_change_the_store(
            carts in prop::collection::vec((1u32..=28, 100u32..=5000, any::<bool>()), 1..12),
        ) {
            let runtime = common::proptest_runtime();
            runtime.block_on(run(carts))?;
        }
    }
}

#[tokio::test]
async fn a_forced_draw_gives_its_prize_and_its_record_says_so() {
    use loyalty::resources::instant_wins::rules::forced::ForcedPrize;
    let setup = setup().await;
    let customer = setup.customer("forced@example.com").await;
    let services = &setup.server.running.services;
    services.force_draw("demo", 21, ForcedPrize::Prize("coffee".into()));
    let won = setup.event(&customer, "scratch", json!({})).await;
    assert_eq!(draw_of(&won, 21).unwrap()["prize_name"], "Coffee", "{won}");
    // The only coffee is given: forcing it again cannot give it, and
    // spends the force on an ordinary draw.
    services.force_draw("demo", 21, ForcedPrize::Prize("coffee".into()));
    let lost = setup.event(&customer, "scratch", json!({})).await;
    assert_eq!(
        draw_of(&lost, 21).unwrap().get("prize_name"),
        None,
        "{lost}"
    );
    let draws = services
        .store()
        .draws("demo", Some(&customer))
        .await
        .unwrap();
    let forced: Vec<bool> = draws
        .iter()
        .map(|draw| draw["forced"].as_bool().unwrap_or(false))
        .collect();
    assert_eq!(forced, [true, false]);
}

#[tokio::test]
async fn the_metrics_count_draws_wins_and_the_prizes_waiting_for_delivery() {
    let setup = setup_with("mem://", |settings| settings.deliver_prizes = false).await;
    let winners = setup.customers("counted", 3).await;
    for winner in &winners {
        let answer = setup.event(winner, "treat", json!({})).await;
        assert!(draw_of(&answer, 29).unwrap().get("prize_name").is_some());
    }
    let services = &setup.server.running.services;
    let waiting = services.metrics_text().await;
    let value = common::metric_sample;
    assert_eq!(
        value(
            &waiting,
            r#"loyalty_draws_total{campaign="29",company="demo"}"#
        ),
        Some(3.0),
        "{waiting}"
    );
    assert_eq!(
        value(
            &waiting,
            r#"loyalty_wins_total{campaign="29",company="demo"}"#
        ),
        Some(3.0)
    );
    assert_eq!(value(&waiting, "loyalty_prize_outbox_pending"), Some(3.0));
    let won_at = setup.server.running.services.now().as_datetime();
    setup
        .server
        .set_time(&(won_at + chrono::TimeDelta::seconds(90)).to_rfc3339());
    let later = services.metrics_text().await;
    assert_eq!(
        value(&later, "loyalty_prize_outbox_oldest_seconds"),
        Some(90.0)
    );

    assert_eq!(services.deliver_pending_prizes().await.unwrap(), 3);
    let delivered = services.metrics_text().await;
    assert_eq!(value(&delivered, "loyalty_prize_outbox_pending"), Some(0.0));
    assert_eq!(
        value(&delivered, "loyalty_prize_outbox_oldest_seconds"),
        Some(0.0)
    );
}

#[tokio::test]
async fn the_back_office_page_shows_each_prize_its_draws_and_runs_the_simulator() {
    use common::browser::Browser;
    let setup = setup().await;
    let winners = setup.customers("page", 3).await;
    for winner in &winners {
        let answer = setup.event(winner, "treat", json!({})).await;
        assert!(draw_of(&answer, 29).unwrap().get("prize_name").is_some());
    }
    let mut browser = Browser::signed_in(&setup.server).await;
    let page = browser.get("/companies/demo/instant_wins").await;
    assert_eq!(page.status, 200, "{}", page.body);
    let section_start = page.body.find("id=\"campaign-29\"").expect("campaign 29");
    let section_end = page.body[section_start..]
        .find("</section>")
        .map_or(page.body.len(), |end| section_start + end);
    let section = &page.body[section_start..section_end];
    assert!(
        section.contains("3 draws in the last 24 hours"),
        "{section}"
    );
    assert!(
        section.contains("100.00 %"),
        "weight and observed rate: {section}"
    );
    assert!(
        section.contains("<rect class=\"p0\""),
        "a bar of wins: {section}"
    );
    for winner in &winners {
        assert!(
            section.contains(winner.as_str()),
            "the last draws name {winner}"
        );
    }

    let simulated = browser
        .submit(
            "/companies/demo/instant_wins/29/simulate",
            &[("runs", "5000"), ("seed", "7")],
        )
        .await;
    assert_eq!(simulated.status, 200);
    assert!(
        simulated.body.contains("5000 draws from seed 7"),
        "{}",
        simulated.body
    );
    assert!(simulated.body.contains("consistent with the weights"));
    let refused = browser
        .submit(
            "/companies/demo/instant_wins/29/simulate",
            &[("runs", "0"), ("seed", "")],
        )
        .await;
    assert!(
        refused.body.contains("simulate 1 to 1000000 draws"),
        "{}",
        refused.body
    );
    let unknown = browser
        .submit(
            "/companies/demo/instant_wins/999/simulate",
            &[("runs", "10"), ("seed", "1")],
        )
        .await;
    assert!(unknown.body.contains("instant_win_not_found"));
}
