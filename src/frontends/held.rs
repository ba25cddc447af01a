//! Timer rings that reached no one: loopd started with a timer overdue
//! before its clients came back, or every client was away when it went
//! off. The bus and D-Bus hold them and ring them again each second, to the
//! first connection that hears them, for up to ten minutes.

use crate::tools::timers::Rang;
use std::future::Future;
use std::time::{Duration, Instant};
use tokio::time::{Interval, MissedTickBehavior};

/// How long a ring no one heard is held.
const HELD_FOR: Duration = Duration::from_secs(600);

/// How often held rings are rung again.
const RETRY_EVERY: Duration = Duration::from_secs(1);

/// The most rings held at once; the oldest is dropped for a newer one.
const HELD_MAX: usize = 20;

/// The rings a front end could not deliver yet.
pub struct HeldRings {
    rings: Vec<(Instant, Rang)>,
    retry: Interval,
}

impl HeldRings {
    /// None held yet.
    pub fn new() -> Self {
        let mut retry = tokio::time::interval(RETRY_EVERY);
        retry.set_missed_tick_behavior(MissedTickBehavior::Delay);
        HeldRings {
            rings: Vec::new(),
            retry,
        }
    }

    /// Holds a ring no one heard.
    pub fn hold(&mut self, rang: Rang) {
        tracing::info!(
            "timer {} rang with no one to hear it; held for the next connection",
            rang.timer.id
        );
        if self.rings.len() == HELD_MAX {
            self.rings.remove(0);
        }
        self.rings.push((Instant::now(), rang));
    }

    /// Waits until the held rings are due to be rung again; never while none
    /// are held.
    pub async fn due(&mut self) {
        if self.rings.is_empty() {
            std::future::pending::<()>().await;
        }
        self.retry.tick().await;
    }

    /// Rings each held ring with `ring` (which says whether anyone heard
    /// it), keeping those still unheard and dropping those held too long.
    pub async fn ring_again<F, Heard>(&mut self, mut ring: F)
    where
        F: FnMut(Rang) -> Heard,
        Heard: Future<Output = bool>,
    {
        let mut still = Vec::new();
        for (since, rang) in std::mem::take(&mut self.rings) {
            if since.elapsed() > HELD_FOR {
                tracing::warn!("timer {} was never heard; dropped", rang.timer.id);
            } else if !ring(rang.clone()).await {
                still.push((since, rang));
            }
        }
        self.rings = still;
    }
}

impl Default for HeldRings {
    fn default() -> Self {
        HeldRings::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::timers::{Kind, Timer};

    fn rang(id: u64, owner: &str) -> Rang {
        let now = chrono::Utc::now();
        Rang {
            timer: Timer {
                id,
                owner: owner.into(),
                kind: Kind::Timer,
                label: None,
                set_at: now,
                due: now,
            },
            late: false,
            spoken: "Your timer is done.".into(),
        }
    }

    #[tokio::test]
    async fn rings_heard_again_go_and_the_rest_stay_in_order() {
        let mut held = HeldRings::new();
        for id in 1..=3 {
            held.hold(rang(id, if id == 2 { "here" } else { "away" }));
        }
        held.due().await;
        let mut tried = Vec::new();
        held.ring_again(|rang| {
            tried.push(rang.timer.id);
            async move { rang.timer.owner == "here" }
        })
        .await;
        assert_eq!(tried, [1, 2, 3]);
        let left: Vec<u64> = held.rings.iter().map(|(_, r)| r.timer.id).collect();
        assert_eq!(left, [1, 3]);
    }

    #[tokio::test]
    async fn the_oldest_goes_when_too_many_are_held() {
        let mut held = HeldRings::new();
        for id in 0..HELD_MAX as u64 + 2 {
            held.hold(rang(id, "away"));
        }
        assert_eq!(held.rings.len(), HELD_MAX);
        assert_eq!(held.rings[0].1.timer.id, 2);
    }
}
