//! The voice front end: spoken questions in, spoken answers out, for as
//! long as the input lasts.
//!
//! [`converse`] hears audio chunk by chunk (a microphone, or a WAV file at
//! its recorded pace), cuts it into utterances ([`segment`]), transcribes
//! each (while the user speaks, computing the question's prompt from what
//! was heard so far; in the pause before the turn ends, where it also asks
//! the question, held: [`early`]), decides whether it is a question for
//! loopd ([`wake`]), and sends it to the daemon as any front end's
//! request. While the loop streams its
//! answer, [`speaker`] speaks it sentence by sentence. Speech heard while an
//! answer runs or plays is a barge-in: playback stops at once, the loop is
//! cancelled, and what was said is the next question.

pub mod early;
pub mod segment;
pub mod speaker;
pub mod wake;

use crate::daemon::{Answer, Ask, AskError, Daemon, Prefilling, Ran, Ticket};
use crate::engine::hold::Hold;
use crate::engine::Trace;
use crate::tools::timers::Rang;
use crate::voice::speech::Voice;
use crate::voice::stream::{Hearing, Playing};
use crate::voice::vad::{Endpointing, Judging, Pause, TurnJudge, Utterance, VoiceDetector, RATE};
use crate::voice::VoiceError;
use early::{Ahead, Transcriber};
use segment::{Recent, Segmenter};
use speaker::{speak_answer, Speaker, Spoken};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use wake::{Addressing, Heard};

/// How long stopping waits for the listening thread to finish the speech
/// work it is doing.
const STOP_GRACE: Duration = Duration::from_secs(1);

/// How a conversation goes.
#[derive(Debug, Clone)]
pub struct ListenSettings {
    /// When an utterance is over (voice segmentation).
    pub rules: Endpointing,
    /// Hears speech in what is heard (earshot's detector without one).
    pub detector: Option<Arc<dyn VoiceDetector>>,
    /// Asked whether a pause ends the turn, and when (else the rules'
    /// fixed silence does).
    pub judge: Option<(Arc<dyn TurnJudge>, Judging)>,
    /// Speech during an answer interrupts it; otherwise what is heard while
    /// loopd answers is ignored (for open speakers without echo
    /// cancellation, whose own voice would interrupt it).
    pub barge_in: bool,
    /// Only utterances that begin with this phrase are questions.
    pub wake: Option<String>,
    /// How long after an answer the next utterance needs no wake phrase
    /// (zero: always).
    pub follow_up: Duration,
    /// Cut utterances where this switch goes on and off instead of by voice.
    pub push_to_talk: Option<Arc<AtomicBool>>,
    /// Stop after the first answered question.
    pub once: bool,
    /// Transcribe, and ask, in the pause before the turn ends ([`early`]).
    pub early: bool,
}

/// Makes the daemon request for a question heard.
pub type MakeAsk = Box<dyn Fn(&str) -> Result<Ask, String> + Send>;

/// What answers a question: the daemon, how to phrase a request, the
/// speech models and where the voice goes.
pub struct Answering {
    /// The daemon every front end shares.
    pub daemon: Daemon,
    /// Its runtime, which runs the answers.
    pub runtime: tokio::runtime::Handle,
    /// A request for a question.
    pub ask: MakeAsk,
    /// Speech to text.
    pub transcriber: Transcriber,
    /// Text to speech.
    pub voice: Voice,
    /// Where answers are played.
    pub output: Arc<dyn Playing>,
    /// Timers that go off, when loopd keeps them: the local user's are
    /// spoken between answers.
    pub rings: Option<tokio::sync::broadcast::Receiver<Rang>>,
}

/// The caller whose timers the voice front end rings: the user at the
/// microphone.
pub const RINGS_FOR: &str = "local";

/// One question and what became of it.
#[derive(Debug)]
pub struct Turn {
    /// What was heard.
    pub transcript: String,
    /// The question asked (the transcript without a wake phrase).
    pub question: String,
    /// The daemon's reply.
    pub reply: Result<Answer, AskError>,
    /// What ran.
    pub ran: Option<Ran>,
    /// Every event of the loop.
    pub trace: Trace,
    /// The sentences spoken (before any barge-in).
    pub sentences: Vec<String>,
    /// From the end of the speech to the decision that the turn was over,
    /// in ms: the silence waited for and any turn model's time.
    pub vad_ms: f64,
    /// The silence heard after the speech before the turn was over, in ms
    /// of the audio itself (the endpointer's rule, not this machine's speed).
    pub silence_ms: f64,
    /// How long Whisper ran for the transcript, in ms.
    pub stt_ms: f64,
    /// From the end of speech to the transcript, in ms: the turn's end and
    /// what was left of transcribing then.
    pub transcript_ms: f64,
    /// The transcript was begun in the pause, before the turn ended.
    pub transcribed_early: bool,
    /// Tokens of the transcript that an earlier transcription of the same
    /// speech had decoded, read by Whisper in one step.
    pub stt_reused_tokens: usize,
    /// The question was asked in the pause, and its answer begun before the
    /// turn ended.
    pub asked_early: bool,
    /// Prompt tokens computed from what was heard while the user still
    /// spoke, ahead of the question ([`Daemon::prefill`]).
    pub prefilled_tokens: usize,
    /// From the end of speech to the first answer token, in ms.
    pub first_answer_token_ms: Option<f64>,
    /// From the end of speech to the first answer audio, in ms.
    pub first_audio_ms: Option<f64>,
    /// When the user talked over the answer: from the start of their speech
    /// to the moment playback stopped, in ms.
    pub barge_in_ms: Option<f64>,
}

/// A question being answered.
struct Pending {
    transcript: String,
    question: String,
    speech_ended: Instant,
    vad_ms: f64,
    silence_ms: f64,
    stt_ms: f64,
    transcript_ms: f64,
    transcribed_early: bool,
    stt_reused_tokens: usize,
    asked_early: bool,
    prefilled: Vec<Prefilling>,
    cancel: CancellationToken,
    hush: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<Answered>,
    barge_in_ms: Option<f64>,
}

/// Work begun on the question under way before its turn ended.
#[derive(Default)]
struct BeforeTheEnd {
    /// The question asked, held, in the pause.
    asked: Option<Ahead>,
    /// Its prompt computed from the words heard so far.
    prefilled: Vec<Prefilling>,
}

/// What the answering task hands back.
struct Answered {
    reply: Result<Answer, AskError>,
    ran: Option<Ran>,
    trace: Trace,
    first_token: Option<Instant>,
    spoken: Result<Spoken, VoiceError>,
}

/// When sample `offset` was heard, given that sample `heard` arrived at
/// `arrived`.
fn heard_at(offset: usize, heard: usize, arrived: Instant) -> Instant {
    arrived - Duration::from_secs_f64(heard.saturating_sub(offset) as f64 / RATE as f64)
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 10_000.0).round() / 10.0
}

/// Converses until the input ends, `stop` is set, or (with `once`) the
/// first question is answered; each finished turn goes to `on_turn`.
/// Returns how many questions were answered.
pub fn converse(
    input: &mut dyn Hearing,
    parts: &mut Answering,
    settings: &ListenSettings,
    stop: &AtomicBool,
    on_turn: &mut dyn FnMut(Turn),
) -> Result<usize, VoiceError> {
    let mut cut = match &settings.push_to_talk {
        Some(talking) => Segmenter::push_to_talk(talking.clone()),
        None => Segmenter::voice(
            settings.rules,
            settings.detector.as_deref(),
            settings.judge.clone(),
        ),
    };
    let mut addressing = Addressing::new(settings.wake.as_deref());
    let mut recent = Recent::default();
    let mut pending: Option<Pending> = None;
    let mut ahead = BeforeTheEnd::default();
    let mut answered = 0;
    let mut ringing: Vec<String> = Vec::new();

    while !stop.load(Ordering::Relaxed) {
        let Some(chunk) = input.next_chunk()? else {
            break;
        };
        let arrived = Instant::now();
        recent.push(&chunk, cut.in_speech());
        let segmented = cut.push(&chunk);
        let busy = pending.is_some() || parts.output.is_playing();

        if let (Some(onset), true, true) = (segmented.onset, busy, settings.barge_in) {
            parts.output.stop();
            let stopped = Instant::now();
            if let Some(p) = &mut pending {
                p.hush.store(true, Ordering::Relaxed);
                p.cancel.cancel();
                p.barge_in_ms = Some(ms(stopped - heard_at(onset, recent.heard(), arrived)));
            }
            tracing::debug!("barge-in: playback stopped");
        }
        for utterance in segmented.utterances {
            if busy && !settings.barge_in {
                tracing::debug!("heard speech while answering; ignored (no barge-in)");
                continue;
            }
            if let Some(p) = hear(
                &utterance,
                &recent,
                arrived,
                parts,
                &mut addressing,
                settings,
                std::mem::take(&mut ahead),
            )? {
                finish_pending(&parts.runtime, &mut pending, &mut answered, on_turn)?;
                pending = Some(p);
            }
        }
        if settings.early && (pending.is_none() || settings.barge_in) {
            let pause = cut.pause();
            parts
                .transcriber
                .heard(cut.so_far().as_ref(), pause.as_ref(), &recent);
            let so_far = parts.transcriber.so_far();
            if pending.is_none() {
                let words = keep_ahead(&mut ahead.asked, pause.as_ref(), parts, &addressing);
                if words.as_deref().is_some_and(early::reads_finished) {
                    cut.words_finished();
                }
                prefill_so_far(so_far, &mut ahead.prefilled, parts, &addressing);
            }
        }
        take_rings(&mut parts.rings, &mut ringing);
        if !ringing.is_empty() && pending.is_none() && !parts.output.is_playing() {
            let said = std::mem::take(&mut ringing).join(" ");
            tracing::info!("listen: timer: {said}");
            parts.output.play(&parts.voice.synthesize(&said)?)?;
        }
        if pending
            .as_ref()
            .is_some_and(|p| p.task.is_finished() && !parts.output.is_playing())
        {
            finish_pending(&parts.runtime, &mut pending, &mut answered, on_turn)?;
            addressing.answered(Instant::now(), settings.follow_up);
            if settings.once && answered > 0 {
                return Ok(answered);
            }
        }
    }
    if let Some(utterance) = cut.finish() {
        let arrived = Instant::now();
        if let Some(p) = hear(
            &utterance,
            &recent,
            arrived,
            parts,
            &mut addressing,
            settings,
            std::mem::take(&mut ahead),
        )? {
            finish_pending(&parts.runtime, &mut pending, &mut answered, on_turn)?;
            pending = Some(p);
        }
    }
    if stop.load(Ordering::Relaxed) {
        if let Some(p) = &pending {
            p.cancel.cancel();
            parts.output.stop();
        }
    }
    finish_pending(&parts.runtime, &mut pending, &mut answered, on_turn)?;
    Ok(answered)
}

/// Asks the question heard before a pause, held, once its transcript is
/// ready; withdraws one asked before an earlier pause when the speech went on.
/// Returns the transcript when it became ready now.
fn keep_ahead(
    ahead: &mut Option<Ahead>,
    pause: Option<&Pause>,
    parts: &mut Answering,
    addressing: &Addressing,
) -> Option<String> {
    if let (Some(asked), Some(pause)) = (ahead.as_ref(), pause) {
        if asked.heard_before(pause) {
            return None;
        }
    }
    if let Some(stale) = ahead.take() {
        stale.withdraw();
    }
    let pause = pause?;
    let transcript = parts.transcriber.ready(pause)?;
    *ahead = Ahead::ask(pause, &transcript, addressing, |question, held| {
        submit(parts, question, Some(held))
    });
    Some(transcript)
}

/// Computes the prompt of the question heard so far, when a transcription
/// made while the user speaks has just given it (`so_far`), instead of the
/// one begun for fewer words.
fn prefill_so_far(
    so_far: Option<String>,
    prefilled: &mut Vec<Prefilling>,
    parts: &mut Answering,
    addressing: &Addressing,
) {
    let Some(transcript) = so_far else {
        return;
    };
    let Heard::Question(question) = addressing.clone().classify(&transcript, Instant::now()) else {
        return;
    };
    let ask = match (parts.ask)(&question) {
        Ok(ask) => ask,
        Err(e) => {
            tracing::debug!("cannot ask {question:?}: {e}");
            return;
        }
    };
    let _inside = parts.runtime.enter();
    match parts.daemon.prefill(ask) {
        Ok(Some(prefilling)) => {
            tracing::debug!("computing the prompt of {question:?}, heard so far");
            if let Some(older) = prefilled.last() {
                older.cancel();
            }
            prefilled.push(prefilling);
        }
        Ok(None) => {}
        Err(e) => tracing::debug!("cannot compute the prompt of {question:?}: {e}"),
    }
}

/// Asks the daemon `question` (held, when asked ahead of the turn's end).
fn submit(parts: &mut Answering, question: &str, held: Option<Hold>) -> Option<Ticket> {
    let mut ask = match (parts.ask)(question) {
        Ok(ask) => ask,
        Err(e) => {
            tracing::warn!("cannot ask {question:?}: {e}");
            return None;
        }
    };
    ask.held = held;
    let _inside = parts.runtime.enter();
    parts
        .daemon
        .submit(ask)
        .inspect_err(|e| tracing::warn!("the daemon refused {question:?}: {e}"))
        .ok()
}

/// Moves the local user's timers that went off into `ringing`.
fn take_rings(
    rings: &mut Option<tokio::sync::broadcast::Receiver<Rang>>,
    ringing: &mut Vec<String>,
) {
    use tokio::sync::broadcast::error::TryRecvError;
    let Some(receiver) = rings else { return };
    loop {
        match receiver.try_recv() {
            Ok(rang) if rang.timer.owner == RINGS_FOR => ringing.push(rang.spoken),
            Ok(_) => {}
            Err(TryRecvError::Lagged(missed)) => {
                tracing::warn!("listen: {missed} timer(s) rang while speech was behind");
            }
            Err(TryRecvError::Empty) => return,
            Err(TryRecvError::Closed) => {
                *rings = None;
                return;
            }
        }
    }
}

/// Transcribes an utterance and, when it is a question, starts answering it
/// (or releases the answer asked `ahead` in its last pause).
fn hear(
    utterance: &Utterance,
    recent: &Recent,
    arrived: Instant,
    parts: &mut Answering,
    addressing: &mut Addressing,
    settings: &ListenSettings,
    ahead: BeforeTheEnd,
) -> Result<Option<Pending>, VoiceError> {
    let speech_ended = heard_at(utterance.end, recent.heard(), arrived);
    let vad_ms = ms(Instant::now().saturating_duration_since(speech_ended));
    let transcribed = parts.transcriber.transcribe(utterance, recent);
    let transcript_ms = ms(speech_ended.elapsed());
    let stt_ms = ms(transcribed.ran);
    let transcript = transcribed.text?.trim().to_string();
    tracing::debug!(
        "heard: {transcript:?} (stt {stt_ms} ms{}; ready {transcript_ms} ms after speech)",
        if transcribed.early {
            ", begun in the pause"
        } else {
            ""
        }
    );
    let question = match addressing.classify(&transcript, Instant::now()) {
        Heard::Question(q) => q,
        Heard::Woken => {
            if settings.barge_in || !parts.output.is_playing() {
                parts.output.play(&parts.voice.synthesize("Yes?")?)?;
            }
            return Ok(None);
        }
        Heard::Hush => {
            parts.output.stop();
            return Ok(None);
        }
        Heard::Ignored => return Ok(None),
    };
    let asked_ahead = ahead
        .asked
        .and_then(|asked| asked.settle(utterance, &question));
    let asked_early = asked_ahead.is_some();
    let Some(mut ticket) = asked_ahead.or_else(|| submit(parts, &question, None)) else {
        return Ok(None);
    };
    if asked_early {
        tracing::debug!("answering {question:?}, asked in the pause");
    }
    let speaker = Speaker::start(parts.voice.clone(), parts.output.clone());
    let cancel = ticket.canceller();
    let hush = speaker.hush_switch();
    let task = parts.runtime.spawn(async move {
        let mut trace = Trace::new();
        let first_token = speak_answer(&mut ticket, &speaker, &mut trace).await;
        let reply = ticket.finish().await;
        let ran = ticket.ran().cloned();
        drop(ticket);
        let spoken = tokio::task::spawn_blocking(move || speaker.finish())
            .await
            .unwrap_or_else(|_| Err(VoiceError::Speech("the speech thread stopped".into())));
        Answered {
            reply,
            ran,
            trace,
            first_token,
            spoken,
        }
    });
    Ok(Some(Pending {
        transcript,
        question,
        speech_ended,
        vad_ms,
        silence_ms: utterance.endpoint_delay_ms(),
        stt_ms,
        transcript_ms,
        transcribed_early: transcribed.early,
        stt_reused_tokens: transcribed.reused,
        asked_early,
        prefilled: ahead.prefilled,
        cancel,
        hush,
        task,
        barge_in_ms: None,
    }))
}

/// Waits for the pending answer, if any, and reports its turn.
fn finish_pending(
    runtime: &tokio::runtime::Handle,
    pending: &mut Option<Pending>,
    answered: &mut usize,
    on_turn: &mut dyn FnMut(Turn),
) -> Result<(), VoiceError> {
    let Some(p) = pending.take() else {
        return Ok(());
    };
    let done = runtime
        .block_on(p.task)
        .map_err(|e| VoiceError::Speech(format!("the answer stopped: {e}")))?;
    let spoken = done.spoken?;
    let since_speech = |at: Instant| ms(at.saturating_duration_since(p.speech_ended));
    *answered += 1;
    on_turn(Turn {
        transcript: p.transcript,
        question: p.question,
        reply: done.reply,
        ran: done.ran,
        trace: done.trace,
        sentences: spoken.sentences,
        vad_ms: p.vad_ms,
        silence_ms: p.silence_ms,
        stt_ms: p.stt_ms,
        transcript_ms: p.transcript_ms,
        transcribed_early: p.transcribed_early,
        stt_reused_tokens: p.stt_reused_tokens,
        asked_early: p.asked_early,
        prefilled_tokens: p.prefilled.iter().map(Prefilling::computed).sum(),
        first_answer_token_ms: done.first_token.map(since_speech),
        first_audio_ms: spoken.first_audio.map(since_speech),
        barge_in_ms: p.barge_in_ms,
    });
    Ok(())
}

/// The voice front end running inside the daemon, on a thread of its own.
pub struct Listening {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
    output: Arc<dyn Playing>,
    description: String,
}

/// Starts conversing on `input` in the background; each turn is logged.
/// `description` says where it hears and speaks, for the ready line.
pub fn start(
    mut parts: Answering,
    mut input: Box<dyn Hearing>,
    settings: ListenSettings,
    description: String,
) -> Result<Listening, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    let output = parts.output.clone();
    let finished = output.clone();
    let thread = std::thread::Builder::new()
        .name("loopd-listen".into())
        .spawn(move || {
            let mut log_turn = |turn: Turn| match &turn.reply {
                Ok(answer) => {
                    tracing::info!(
                        "listen: answered (first audio {} ms after speech{})",
                        turn.first_audio_ms.unwrap_or(f64::NAN),
                        turn.barge_in_ms
                            .map(|ms| format!("; interrupted, stopped in {ms} ms"))
                            .unwrap_or_default()
                    );
                    tracing::debug!("listen: {:?} answered {:?}", turn.question, answer.answer);
                }
                Err(e) => tracing::info!("listen: a question not answered: {e}"),
            };
            match converse(
                input.as_mut(),
                &mut parts,
                &settings,
                &stopping,
                &mut log_turn,
            ) {
                Ok(n) => tracing::info!("listen: the input ended after {n} answer(s)"),
                Err(e) => tracing::error!("listen: {e}"),
            }
            if let Err(e) = finished.close() {
                tracing::error!("listen: {e}");
            }
        })
        .map_err(|e| format!("cannot start the voice front end: {e}"))?;
    Ok(Listening {
        stop,
        thread,
        output,
        description,
    })
}

impl Listening {
    /// Where it hears and speaks, for the ready line.
    pub fn describe(&self) -> String {
        self.description.clone()
    }

    /// Stops hearing, cancels an answer under way and waits for the thread.
    pub async fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        self.output.stop();
        let joined = tokio::task::spawn_blocking(move || self.thread.join());
        if tokio::time::timeout(STOP_GRACE, joined).await.is_err() {
            tracing::warn!("listen: still busy with speech; not waiting for it");
        }
    }
}
