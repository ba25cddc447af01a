//! Helper threads that stay awake between the products of a forward pass.
//!
//! Decoding one token runs about a hundred products of a few hundred
//! microseconds each, with a little serial work between them (norms, rope,
//! attention). A rayon worker falls asleep in those gaps and has to be woken
//! by a system call for the next product. A [`Team`]'s helpers spin through
//! a gap of up to [`SPIN`] instead, and sleep only when no product comes
//! (between tokens). The thread that asks never waits for a helper to wake:
//! it works through the items itself, and a helper that was too late to
//! join a product stays out of it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock, TryLockError};
use std::time::{Duration, Instant};

/// How long a helper spins after a product before it sleeps: longer than
/// the gaps inside a forward pass, shorter than the wait between tokens.
const SPIN: Duration = Duration::from_micros(250);

/// `state`'s low bits: how many helpers joined the current job.
const JOINED: u64 = (1 << 15) - 1;
/// `state`'s bit set when the job takes no more helpers.
const CLOSED: u64 = 1 << 15;
/// `state`'s generation (the job's number) starts at this bit.
const GENERATION: u32 = 16;

/// What the asking thread and its helpers share.
struct Shared {
    /// The job's generation, whether it is closed, and how many helpers
    /// joined it.
    state: AtomicU64,
    /// The current job, a `*const &(dyn Fn(usize) + Sync)` (called with the
    /// thread's share: 0 for the asking thread) that stays valid
    /// until the job is closed and every helper that joined has finished.
    job: AtomicPtr<()>,
    /// Helpers done with the current job.
    finished: AtomicUsize,
    /// Whether a helper's part of the current job panicked.
    panicked: AtomicBool,
    /// Helpers asleep (or about to be).
    sleeping: AtomicUsize,
    sleep: Mutex<()>,
    wake: Condvar,
}

/// The helper threads, and who is using them now.
pub struct Team {
    shared: &'static Shared,
    helpers: usize,
    /// Held by the thread whose job the team runs; another thread that finds
    /// it taken runs its work elsewhere.
    lead: Mutex<()>,
}

/// The team, with one helper fewer than the threads the products may use;
/// `None` for one thread, or when a helper could not be started.
pub fn team() -> Option<&'static Team> {
    static TEAM: OnceLock<Option<Team>> = OnceLock::new();
    TEAM.get_or_init(|| Team::start(crate::device::threads().saturating_sub(1)))
        .as_ref()
}

/// Runs `work` on every item, on the team when it is free, else on this
/// thread alone: for work too small to hand to the rayon pool.
pub fn spread<T: Send>(items: Vec<T>, work: impl Fn(T) + Sync) {
    let items = match team() {
        Some(team) => match team.for_each(items, &work) {
            Ok(()) => return,
            Err(items) => items,
        },
        None => items,
    };
    items.into_iter().for_each(work);
}

impl Team {
    fn start(helpers: usize) -> Option<Team> {
        if helpers == 0 {
            return None;
        }
        let shared: &'static Shared = Box::leak(Box::new(Shared {
            state: AtomicU64::new(CLOSED),
            job: AtomicPtr::new(std::ptr::null_mut()),
            finished: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            sleeping: AtomicUsize::new(0),
            sleep: Mutex::new(()),
            wake: Condvar::new(),
        }));
        for i in 0..helpers {
            let started = std::thread::Builder::new()
                .name(format!("loopd-team-{i}"))
                .spawn(move || help(shared));
            if let Err(e) = started {
                tracing::warn!("cannot start a product helper thread: {e}");
                return (i > 0).then_some(Team {
                    shared,
                    helpers: i,
                    lead: Mutex::new(()),
                });
            }
        }
        Some(Team {
            shared,
            helpers,
            lead: Mutex::new(()),
        })
    }

    /// Runs `work` on every item, on this thread and whichever helpers join;
    /// the items back when another thread is using the team.
    pub fn for_each<T: Send>(&self, items: Vec<T>, work: impl Fn(T) + Sync) -> Result<(), Vec<T>> {
        let _lead = match self.lead.try_lock() {
            Ok(lead) => lead,
            Err(TryLockError::Poisoned(lead)) => lead.into_inner(),
            Err(TryLockError::WouldBlock) => return Err(items),
        };
        let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
        let shares = Shares::new(slots.len(), self.helpers + 1);
        let job = |me: usize| {
            while let Some(i) = shares.take(me) {
                let item = slots[i].lock().unwrap_or_else(|p| p.into_inner()).take();
                if let Some(item) = item {
                    work(item);
                }
            }
        };
        let job: &(dyn Fn(usize) + Sync) = &job;
        let shared = self.shared;
        let generation = (shared.state.load(Ordering::Relaxed) >> GENERATION) + 1;
        shared.finished.store(0, Ordering::Relaxed);
        shared.panicked.store(false, Ordering::Relaxed);
        shared.job.store(
            &job as *const &(dyn Fn(usize) + Sync) as *mut (),
            Ordering::Relaxed,
        );
        shared
            .state
            .store(generation << GENERATION, Ordering::SeqCst);
        if shared.sleeping.load(Ordering::SeqCst) > 0 {
            let _asleep = shared.sleep.lock().unwrap_or_else(|p| p.into_inner());
            shared.wake.notify_all();
        }
        let closing = Closing(shared);
        job(0);
        drop(closing);
        if shared.panicked.load(Ordering::Acquire) {
            panic!("a product helper thread panicked");
        }
        Ok(())
    }
}

/// A job's items split into one run per thread. Each thread works through
/// its own run from the front, so that it reads the weights in order; once
/// it is done it takes items from the back of the longest run left.
struct Shares(Vec<AtomicU64>);

impl Shares {
    fn new(items: usize, threads: usize) -> Shares {
        Shares(
            (0..threads)
                .map(|t| AtomicU64::new(pack(items * t / threads, items * (t + 1) / threads)))
                .collect(),
        )
    }

    /// The next item for thread `me`.
    fn take(&self, me: usize) -> Option<usize> {
        if let Some(own) = self.0.get(me) {
            let mut run = own.load(Ordering::Relaxed);
            loop {
                let (front, back) = unpack(run);
                if front >= back {
                    break;
                }
                match own.compare_exchange_weak(
                    run,
                    pack(front + 1, back),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => return Some(front),
                    Err(now) => run = now,
                }
            }
        }
        loop {
            let (longest, run) = self
                .0
                .iter()
                .map(|r| (r, r.load(Ordering::Relaxed)))
                .max_by_key(|(_, run)| {
                    let (front, back) = unpack(*run);
                    back.saturating_sub(front)
                })?;
            let (front, back) = unpack(run);
            if front >= back {
                return None;
            }
            if longest
                .compare_exchange(
                    run,
                    pack(front, back - 1),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_ok()
            {
                return Some(back - 1);
            }
        }
    }
}

fn pack(front: usize, back: usize) -> u64 {
    (front as u64) | ((back as u64) << 32)
}

fn unpack(run: u64) -> (usize, usize) {
    ((run & u32::MAX as u64) as usize, (run >> 32) as usize)
}

/// Closes the current job to helpers that have not joined it, and waits for
/// those that have, also when the asking thread's own part panics: the job
/// borrows from its stack.
struct Closing(&'static Shared);

impl Drop for Closing {
    fn drop(&mut self) {
        let joined = (self.0.state.fetch_or(CLOSED, Ordering::AcqRel) & JOINED) as usize;
        let mut spins = 0u32;
        while self.0.finished.load(Ordering::Acquire) < joined {
            spins += 1;
            if spins < 1 << 12 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// A helper's life: join each job it sees open, spin a while after it,
/// sleep until the next.
fn help(shared: &'static Shared) {
    let mut seen = shared.state.load(Ordering::Acquire) >> GENERATION;
    loop {
        let spinning = Instant::now();
        let mut spins = 0u32;
        loop {
            let state = shared.state.load(Ordering::Acquire);
            if state >> GENERATION != seen {
                seen = state >> GENERATION;
                join(shared, state);
                break;
            }
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) && spinning.elapsed() > SPIN {
                doze(shared, seen);
                break;
            }
            if spins.is_multiple_of(512) {
                // Lets a thread waiting for this core (the asking thread
                // on a busy machine, a voice's synthesis) have it.
                std::thread::yield_now();
            }
            std::hint::spin_loop();
        }
    }
}

/// Joins the job `state` announced, if it is still open, and does its part.
fn join(shared: &Shared, mut state: u64) {
    let me = loop {
        if state & CLOSED != 0 || state & JOINED == JOINED {
            return;
        }
        match shared.state.compare_exchange_weak(
            state,
            state + 1,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => break (state & JOINED) as usize + 1,
            Err(now) if now >> GENERATION == state >> GENERATION => state = now,
            Err(_) => return,
        }
    };
    let job = shared.job.load(Ordering::Acquire) as *const &(dyn Fn(usize) + Sync);
    // SAFETY: the job was stored before its generation was published, and
    // the thread that stored it does not return (nor drop what it borrows)
    // until every helper that joined has counted itself finished below.
    let ran = catch_unwind(AssertUnwindSafe(|| unsafe { (*job)(me) }));
    if ran.is_err() {
        shared.panicked.store(true, Ordering::Release);
    }
    shared.finished.fetch_add(1, Ordering::AcqRel);
}

/// Sleeps until a job after generation `seen` is announced.
fn doze(shared: &Shared, seen: u64) {
    let mut asleep = shared.sleep.lock().unwrap_or_else(|p| p.into_inner());
    shared.sleeping.fetch_add(1, Ordering::SeqCst);
    while shared.state.load(Ordering::SeqCst) >> GENERATION == seen {
        asleep = shared.wake.wait(asleep).unwrap_or_else(|p| p.into_inner());
    }
    shared.sleeping.fetch_sub(1, Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_worked_once_by_the_team() {
        let team = Team::start(1).expect("one helper");
        for round in 0..200 {
            let n = round % 37;
            let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            team.for_each((0..n).collect(), |i: usize| {
                seen[i].fetch_add(1, Ordering::Relaxed);
            })
            .unwrap_or_else(|_| panic!("the team was free"));
            assert!(
                seen.iter().all(|s| s.load(Ordering::Relaxed) == 1),
                "round {round}"
            );
            if round % 50 == 0 {
                std::thread::sleep(SPIN * 4);
            }
        }
    }

    #[test]
    fn a_busy_team_hands_the_items_back() {
        let team = Team::start(1).expect("one helper");
        let inner = std::sync::Mutex::new(None);
        team.for_each(vec![()], |()| {
            *inner.lock().unwrap() = Some(team.for_each(vec![7], |_| {}));
        })
        .unwrap_or_else(|_| panic!("the team was free"));
        assert_eq!(inner.into_inner().unwrap(), Some(Err(vec![7])));
    }

    #[test]
    fn a_panicking_item_panics_the_asking_thread() {
        let team = Team::start(1).expect("one helper");
        let asked = catch_unwind(AssertUnwindSafe(|| {
            let _ = team.for_each((0..64).collect(), |i: usize| {
                if i == 40 {
                    panic!("item 40");
                }
            });
        }));
        assert!(asked.is_err());
        let after = AtomicUsize::new(0);
        team.for_each((0..64).collect(), |_: usize| {
            after.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap_or_else(|_| panic!("the team was free"));
        assert_eq!(after.load(Ordering::Relaxed), 64);
    }
}
