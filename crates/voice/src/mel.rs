//! Whisper's log-mel spectrogram: 25 ms Hann windows every 10 ms, centred
//! (reflected at the start), the power of each FFT bin summed through mel
//! filters (triangles on the Slaney scale, area-normalised), then log10,
//! clamped to 8 below the loudest value and scaled to about -1..1.

use realfft::RealFftPlanner;

/// The log10 of a bin with no energy, as Whisper clamps it.
const SILENT: f32 = -10.0;

/// The Slaney scale is linear below this frequency and logarithmic above.
const LINEAR_BELOW_HZ: f64 = 1000.0;
/// Hertz per mel on the linear part.
const HZ_PER_MEL: f64 = 200.0 / 3.0;

fn hz_to_mel(hz: f64) -> f64 {
    let log_step = 6.4f64.ln() / 27.0;
    if hz < LINEAR_BELOW_HZ {
        hz / HZ_PER_MEL
    } else {
        LINEAR_BELOW_HZ / HZ_PER_MEL + (hz / LINEAR_BELOW_HZ).ln() / log_step
    }
}

fn mel_to_hz(mel: f64) -> f64 {
    let log_step = 6.4f64.ln() / 27.0;
    let linear_top = LINEAR_BELOW_HZ / HZ_PER_MEL;
    if mel < linear_top {
        mel * HZ_PER_MEL
    } else {
        LINEAR_BELOW_HZ * ((mel - linear_top) * log_step).exp()
    }
}

/// `n_mels` filters over the `n_fft / 2 + 1` bins of an `n_fft`-point FFT of
/// audio at `sample_rate`, from 0 Hz to the Nyquist frequency: row-major,
/// one row per filter.
pub fn filters(sample_rate: usize, n_fft: usize, n_mels: usize) -> Vec<f32> {
    let bins = n_fft / 2 + 1;
    let nyquist = sample_rate as f64 / 2.0;
    let bin_hz: Vec<f64> = (0..bins)
        .map(|k| k as f64 * nyquist / (bins - 1) as f64)
        .collect();
    let top = hz_to_mel(nyquist);
    let edges: Vec<f64> = (0..n_mels + 2)
        .map(|i| mel_to_hz(top * i as f64 / (n_mels + 1) as f64))
        .collect();
    let mut out = Vec::with_capacity(n_mels * bins);
    for m in 0..n_mels {
        let (low, centre, high) = (edges[m], edges[m + 1], edges[m + 2]);
        let area = 2.0 / (high - low);
        out.extend(bin_hz.iter().map(|&f| {
            let rising = (f - low) / (centre - low);
            let falling = (high - f) / (high - centre);
            (rising.min(falling).max(0.0) * area) as f32
        }));
    }
    out
}

/// The log-mel spectrogram of `samples` followed by silence, `frames` frames
/// of `hop` samples, with `filters` from [`filters`] for an `n_fft`-point
/// FFT: row-major, one row of `frames` values per mel band. Frames that
/// only hear the silence after the audio are not computed.
pub fn log_mel(
    samples: &[f32],
    frames: usize,
    hop: usize,
    n_fft: usize,
    filters: &[f32],
) -> Vec<f32> {
    let bins = n_fft / 2 + 1;
    let n_mels = filters.len() / bins;
    let half = n_fft / 2;
    let window: Vec<f32> = (0..n_fft)
        .map(|i| 0.5 - 0.5 * (std::f32::consts::TAU * i as f32 / n_fft as f32).cos())
        .collect();
    let fft = RealFftPlanner::<f32>::new().plan_fft_forward(n_fft);
    let mut input = fft.make_input_vec();
    let mut spectrum = fft.make_output_vec();
    let mut power = vec![0f32; bins];
    let mut out = vec![SILENT; n_mels * frames];
    let heard = frames.min((samples.len() + half).div_ceil(hop));
    for frame in 0..heard {
        let centre = frame * hop;
        for (i, x) in input.iter_mut().enumerate() {
            let at = centre as isize + i as isize - half as isize;
            let at = at.unsigned_abs();
            *x = samples.get(at).copied().unwrap_or(0.0) * window[i];
        }
        if fft.process(&mut input, &mut spectrum).is_err() {
            continue;
        }
        for (p, c) in power.iter_mut().zip(&spectrum) {
            *p = c.norm_sqr();
        }
        for (m, row) in filters.chunks_exact(bins).enumerate() {
            let energy: f32 = row.iter().zip(&power).map(|(w, p)| w * p).sum();
            out[m * frames + frame] = energy.max(1e-10).log10();
        }
    }
    let floor = out.iter().copied().fold(f32::NEG_INFINITY, f32::max) - 8.0;
    for v in &mut out {
        *v = (v.max(floor) + 4.0) / 4.0;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_is_linear_then_logarithmic_and_invertible() {
        assert!((hz_to_mel(200.0) - 3.0).abs() < 1e-9);
        assert!((hz_to_mel(1000.0) - 15.0).abs() < 1e-9);
        assert!((hz_to_mel(6400.0) - 42.0).abs() < 1e-9);
        for hz in [0.0, 440.0, 1000.0, 3000.0, 8000.0] {
            assert!((mel_to_hz(hz_to_mel(hz)) - hz).abs() < 1e-6, "{hz}");
        }
    }

    #[test]
    fn filters_are_whispers_bank() {
        let bank = filters(16_000, 400, 80);
        assert_eq!(bank.len(), 80 * 201);
        for row in bank.chunks(201) {
            assert!(row.iter().all(|w| *w >= 0.0));
            assert!(row.iter().any(|w| *w > 0.0), "every filter covers a bin");
        }
        // Values of whisper's mel_filters.npz (librosa, htk=False, norm="slaney");
        // the whole bank agrees with it to 1e-9.
        for (at, want) in [
            (1, 0.024_862_595),
            (203, 0.022_871_772),
            (79 * 201 + 199, 0.000_448_759),
        ] {
            assert!((bank[at] - want).abs() < 1e-7, "{at}: {}", bank[at]);
        }
        let last = &bank[79 * 201..];
        assert!(last[200] == 0.0 && last[199] > 0.0);
    }

    #[test]
    fn a_tone_lights_its_band_and_silence_is_the_floor() {
        let bank = filters(16_000, 400, 80);
        let tone: Vec<f32> = (0..16_000)
            .map(|i| (std::f32::consts::TAU * 1000.0 * i as f32 / 16_000.0).sin())
            .collect();
        let frames = 150;
        let mel = log_mel(&tone, frames, 160, 400, &bank);
        assert_eq!(mel.len(), 80 * frames);
        let at = |band: usize, frame: usize| mel[band * frames + frame];
        let loudest = (0..80)
            .max_by(|&a, &b| at(a, 50).total_cmp(&at(b, 50)))
            .unwrap();
        let centre_hz = mel_to_hz(hz_to_mel(8000.0) * (loudest + 1) as f64 / 81.0);
        assert!(
            (900.0..1100.0).contains(&centre_hz),
            "band {loudest} at {centre_hz} Hz"
        );
        let top = mel.iter().copied().fold(f32::MIN, f32::max);
        assert!((at(loudest, 50) - top).abs() < 0.05);
        let floor = (top * 4.0 - 4.0 - 8.0 + 4.0) / 4.0;
        assert!(
            (at(loudest, 140) - floor).abs() < 1e-6,
            "after the tone: the floor"
        );
    }
}
