//! What operators see and do: forced draws, the metrics of draws and
//! deliveries, and the back-office page with its simulator.

use super::*;

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
