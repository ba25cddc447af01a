//! The parallel product of activation rows with several weight matrices that
//! share them (q/k/v, gate/up), as one batch of work.
//!
//! Few rows (decode, a draft's check): each work item is a chunk of one
//! matrix's output columns for all rows. Many rows (prefill): each work item is a tile of
//! [`Kernel::tile_rows`] activation rows against every matrix, so each
//! weight block is read and unpacked once per tile rather than once per row.
//! The few-row products run on the team (`super::team`), whose helpers do
//! not fall asleep between them.

use super::formats::Format;
use super::{with_packed, BlockQ8, Kernel, Packed, Q8Rows, QMatrix};
use candle_core::Result;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::OnceLock;

/// Groups of 8 output columns per work item when splitting columns.
const CHUNK: usize = 4;

/// `x · wᵀ` for each `w` in `weights`: one `x.rows() × w.rows()` row-major
/// result per matrix, computed with `kernel`.
pub fn matmul(kernel: Kernel, weights: &[&QMatrix], x: &Q8Rows) -> Result<Vec<Vec<f32>>> {
    if !Kernel::available().contains(&kernel) {
        candle_core::bail!("the {kernel:?} kernel does not run on this CPU");
    }
    if let Some(w) = weights.iter().find(|w| w.cols() != x.cols) {
        candle_core::bail!(
            "cannot multiply rows of {} by a {}×{} matrix",
            x.cols,
            w.rows(),
            w.cols()
        );
    }
    let m = x.rows;
    let mut outs: Vec<Vec<f32>> = weights.iter().map(|w| vec![0f32; m * w.rows()]).collect();
    if m == 0 {
        return Ok(outs);
    }
    if m.div_ceil(kernel.tile_rows()) >= 4 * threads() {
        by_rows(kernel, weights, x, &mut outs);
    } else {
        by_columns(kernel, weights, x, &mut outs);
    }
    Ok(outs)
}

/// Columns of one work item of a one-row [`matmul`]: [`CHUNK`] groups of 8.
pub const CHUNK_COLUMNS: usize = 8 * CHUNK;

/// The products of row `r` of `x` with the rows of `w` in each chunk of
/// [`CHUNK_COLUMNS`] named by `chunks`, written to `out` at their columns,
/// bit for bit as a one-row [`matmul`] writes them.
pub fn chunks_of_row(
    kernel: Kernel,
    w: &QMatrix,
    x: &Q8Rows,
    r: usize,
    chunks: &[usize],
    out: &mut [f32],
) {
    let n = w.rows().min(out.len());
    for &chunk in chunks {
        let first = chunk * CHUNK_COLUMNS;
        if first >= n {
            continue;
        }
        let cols = first..(first + CHUNK_COLUMNS).min(n);
        rectangle(kernel, w, cols, x, r..r + 1, |_, c, v| {
            out[first + c..first + c + v.len()].copy_from_slice(v)
        });
    }
}

fn threads() -> usize {
    pool().map_or(1, |p| p.current_num_threads())
}

/// The pool the products run on: as many threads as candle's CPU backend.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(crate::device::threads())
            .thread_name(|i| format!("loopd-quant-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `f` on the pool the products use (when there is one), so that the
/// products inside it start without a hop between threads.
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// Works through `items`: for few rows (a decode step, a draft's check, a
/// short prompt) on the team (`super::team`) when it is free, which stays
/// awake between products; otherwise, and for prefill's long tiles, on the
/// pool.
fn run<T: Send>(few_rows: bool, items: Vec<T>, work: impl Fn(T) + Send + Sync) {
    let items = match super::team::team() {
        Some(team) if few_rows => match team.for_each(items, &work) {
            Ok(()) => return,
            Err(items) => items,
        },
        _ => items,
    };
    match pool() {
        Some(pool) => pool.install(|| items.into_par_iter().for_each(work)),
        None => items.into_iter().for_each(work),
    }
}

/// Work items are chunks of output columns, each for every row: one slice
/// of the chunk's columns per row, written where the row-major result
/// keeps them.
fn by_columns(kernel: Kernel, weights: &[&QMatrix], x: &Q8Rows, outs: &mut [Vec<f32>]) {
    let m = x.rows;
    let width = 8 * CHUNK;
    if m == 1 {
        let items: Vec<(&QMatrix, usize, &mut [f32])> = weights
            .iter()
            .zip(outs.iter_mut())
            .flat_map(|(w, out)| {
                out.chunks_mut(width)
                    .enumerate()
                    .map(move |(i, chunk)| (*w, i * width, chunk))
            })
            .collect();
        run(true, items, |(w, first, out)| {
            rectangle(kernel, w, first..first + out.len(), x, 0..1, |_, c, v| {
                out[c..c + v.len()].copy_from_slice(v)
            });
        });
        return;
    }
    let mut items: Vec<(&QMatrix, usize, Vec<&mut [f32]>)> = Vec::new();
    for (w, out) in weights.iter().zip(outs.iter_mut()) {
        let n = w.rows();
        let mut rows: Vec<_> = out.chunks_mut(n).map(|row| row.chunks_mut(width)).collect();
        for first in (0..n).step_by(width) {
            items.push((*w, first, rows.iter_mut().flat_map(|r| r.next()).collect()));
        }
    }
    run(true, items, |(w, first, mut out)| {
        let cols = first..first + out[0].len();
        rectangle(kernel, w, cols, x, 0..m, |r, c, v| {
            out[r][c..c + v.len()].copy_from_slice(v)
        });
    });
}

/// Work items are tiles of rows, each against all matrices. Where the
/// matrices outgrow the caches, an item is a run of tiles instead, two for
/// each thread, and `rectangle` takes the weights a cache-sized block at a
/// time over every tile of the run: each weight comes from memory once per
/// run rather than once per tile.
fn by_rows(kernel: Kernel, weights: &[&QMatrix], x: &Q8Rows, outs: &mut [Vec<f32>]) {
    let tiles = x.rows.div_ceil(kernel.tile_rows());
    let bytes: usize = weights.iter().map(|w| w.bytes()).sum();
    let run_rows = match bytes > LARGE_BYTES {
        true => tiles.div_ceil(2 * threads()) * kernel.tile_rows(),
        false => kernel.tile_rows(),
    };
    let mut per_matrix: Vec<_> = outs
        .iter_mut()
        .zip(weights)
        .map(|(out, w)| out.chunks_mut(run_rows * w.rows()))
        .collect();
    let items: Vec<(usize, Vec<&mut [f32]>)> = (0..x.rows.div_ceil(run_rows))
        .map(|t| {
            (
                t * run_rows,
                per_matrix.iter_mut().flat_map(|it| it.next()).collect(),
            )
        })
        .collect();
    run(false, items, |(first, chunks)| {
        for (w, out) in weights.iter().zip(chunks) {
            let n = w.rows();
            let rows = first..first + out.len() / n;
            rectangle(kernel, w, 0..n, x, rows, |r, c, v| {
                let at = r * n + c;
                out[at..at + v.len()].copy_from_slice(v)
            });
        }
    });
}

/// The products of rows `rows` of `x` with rows `cols` of `w` (`cols.start`
/// a multiple of 8), handed to `put(r, c, values)` a run of columns at a
/// time, `r` and `c` counted from the start of the ranges.
fn rectangle(
    kernel: Kernel,
    w: &QMatrix,
    cols: Range<usize>,
    x: &Q8Rows,
    rows: Range<usize>,
    put: impl FnMut(usize, usize, &[f32]),
) {
    with_packed!(w, w => rectangle_of(kernel, w, cols, x, rows, put))
}

/// Weight bytes that every tile of a run of rows meets before the next
/// block: about half a core's 1 MiB L2, beside the activation rows.
const BLOCK_BYTES: usize = 512 << 10;

/// Matrices larger than this together are taken by runs of row tiles in
/// prefill (`by_rows`): more than the caches of both cores hold.
const LARGE_BYTES: usize = 4 << 20;

/// [`rectangle`] for one format: the columns a block at a time, each block
/// against every tile of `rows`.
fn rectangle_of<F: Format>(
    kernel: Kernel,
    w: &Packed<F>,
    cols: Range<usize>,
    x: &Q8Rows,
    rows: Range<usize>,
    mut put: impl FnMut(usize, usize, &[f32]),
) {
    let group_bytes = std::mem::size_of::<F>() * (w.cols / F::WEIGHTS);
    let block = 8 * (BLOCK_BYTES / group_bytes.max(1)).max(1);
    let mut first = cols.start;
    while first < cols.end {
        let last = (first + block).min(cols.end);
        tiles_of(
            kernel,
            w,
            first..last,
            cols.start,
            x,
            rows.clone(),
            &mut put,
        );
        first = last;
    }
}

/// Every tile of `rows` against the columns `cols`, handed to `put` counted
/// from `rows.start` and `origin`.
fn tiles_of<F: Format>(
    kernel: Kernel,
    w: &Packed<F>,
    cols: Range<usize>,
    origin: usize,
    x: &Q8Rows,
    rows: Range<usize>,
    put: &mut impl FnMut(usize, usize, &[f32]),
) {
    let mut r = rows.start;
    while r < rows.end {
        let mut put_at = |i: usize, c: usize, v: &[f32]| {
            let v = &v[..v.len().min(cols.end.saturating_sub(c))];
            if !v.is_empty() {
                put(r - rows.start + i, c - origin, v)
            }
        };
        let step = (rows.end - r).min(kernel.tile_rows());
        let cols = cols.clone();
        match step {
            8 => strip::<F, 8>(kernel, w, cols, x, r, &mut put_at),
            7 => strip::<F, 7>(kernel, w, cols, x, r, &mut put_at),
            6 => strip::<F, 6>(kernel, w, cols, x, r, &mut put_at),
            5 => strip::<F, 5>(kernel, w, cols, x, r, &mut put_at),
            4 => strip::<F, 4>(kernel, w, cols, x, r, &mut put_at),
            3 => strip::<F, 3>(kernel, w, cols, x, r, &mut put_at),
            2 => strip::<F, 2>(kernel, w, cols, x, r, &mut put_at),
            _ => strip::<F, 1>(kernel, w, cols, x, r, &mut put_at),
        }
        r += step;
    }
}

/// Rows `r..r + R` of `x` with the groups of 8 rows of `w` that cover `cols`;
/// `put(i, c, values)` gets the row offset `i` and the absolute column `c`
/// of the first value, also for the padding rows of the last group.
fn strip<F: Format, const R: usize>(
    kernel: Kernel,
    w: &Packed<F>,
    cols: Range<usize>,
    x: &Q8Rows,
    r: usize,
    put: &mut impl FnMut(usize, usize, &[f32]),
) {
    let xr: [&[BlockQ8]; R] = std::array::from_fn(|i| x.row(r + i));
    let (mut g, end) = (cols.start / 8, cols.end.div_ceil(8));
    while g < end {
        let n = kernel.groups(R).min(end - g);
        let runs = [w.group_row(g), w.group_row(g + n - 1)];
        kernel.tile::<F, R>(&runs[..n], xr, |i, v| put(i, 8 * g, v));
        g += n;
    }
}
