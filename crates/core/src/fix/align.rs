//! Two texts cut into pieces of whole lines that pair up, so that a big file changed in a
//! few places is diffed piece by piece: equal pieces are only counted, and each changed
//! one is the change and the lines around it.

use std::borrow::Cow;

use super::undo::Undo;

/// Two texts cut into pieces of whole lines that pair up (the old pieces concatenate to the
/// old text, the new ones to the new): what a diff is computed from.
pub type Aligned<'t> = Vec<(Cow<'t, str>, &'t str)>;

/// Two whole texts as [`Aligned`] pieces.
pub fn aligned<'t>(old: &'t str, new: &'t str) -> Aligned<'t> {
    aligned_pieces(old, new, &Sizes::DEFAULT)
        .into_iter()
        .map(|(old, new)| (Cow::Borrowed(old), new))
        .collect()
}

/// A fix's text as read and as fixed as [`Aligned`] pieces, the text as read given as what
/// the fixes replaced: cut as [`aligned`] would cut the two texts, without building the
/// text as read where it is big.
pub(super) fn aligned_undo<'t>(read: &'t Undo, fixed: &'t str) -> Aligned<'t> {
    aligned_undo_in(read, fixed, &Sizes::DEFAULT)
}

pub(super) fn aligned_undo_in<'t>(read: &'t Undo, fixed: &'t str, sizes: &Sizes) -> Aligned<'t> {
    if read.len().max(fixed.len()) <= sizes.one_piece {
        return vec![(Cow::Owned(read.rebuild(fixed)), fixed)];
    }
    read.aligned(fixed, sizes.margin)
}

/// How [`aligned_pieces`] cuts (smaller in tests, to cut small texts).
pub(super) struct Sizes {
    /// Texts up to this size (either side) are diffed in one piece.
    pub(super) one_piece: usize,
    /// Bytes of the old text a resynchronisation looks for in the new one.
    pub(super) anchor: usize,
    /// Equal bytes a piece keeps on each side of a change, for the diff to slide it over,
    /// and how far ahead a resynchronisation first looks.
    pub(super) margin: usize,
}

impl Sizes {
    pub(super) const DEFAULT: Sizes = Sizes {
        one_piece: 1 << 20,
        anchor: 512,
        margin: 4096,
    };
}

/// Cuts two texts into pieces of whole lines that pair up (the old pieces concatenate to
/// `old`, the new ones to `new`), so that a big file changed in a few places is diffed
/// piece by piece: equal pieces are only counted, and each changed one is the change and
/// the lines around it. Interning every line of an 87 MB document and diffing it whole was
/// a fifth of a `fix`; a piece is cut only where the texts run equal again for a stretch,
/// so the diff is the one of the whole texts but where a change sits among repeated text.
pub(super) fn aligned_pieces<'t>(
    old: &'t str,
    new: &'t str,
    sizes: &Sizes,
) -> Vec<(&'t str, &'t str)> {
    let mut pieces = Vec::new();
    let (mut old, mut new) = (old, new);
    loop {
        if old.len().max(new.len()) <= sizes.one_piece {
            pieces.push((old, new));
            return pieces;
        }
        let common = common_prefix(old.as_bytes(), new.as_bytes());
        if common == old.len() && common == new.len() {
            pieces.push((old, new));
            return pieces;
        }
        // Back to a line start far enough before the first difference that the diff may
        // still slide the change up over repeated lines, as it does in the whole text.
        let equal = old
            .as_bytes()
            .get(..common.saturating_sub(sizes.margin))
            .and_then(|head| memchr::memrchr(b'\n', head))
            .map_or(0, |nl| nl + 1);
        let cut = if equal > 0 {
            Some((equal, equal))
        } else {
            resync(old, new, sizes)
        };
        match cut.and_then(|(a, b)| Some((old.split_at_checked(a)?, new.split_at_checked(b)?))) {
            Some(((old_piece, old_rest), (new_piece, new_rest))) => {
                pieces.push((old_piece, new_piece));
                (old, new) = (old_rest, new_rest);
            }
            None => {
                pieces.push((old, new));
                return pieces;
            }
        }
    }
}

/// How many leading bytes `a` and `b` share: compared a block at a time, so a long equal
/// run costs a `memcmp`.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let mut at = 0;
    while let (Some(x), Some(y)) = (a.get(at..at + BLOCK), b.get(at..at + BLOCK)) {
        if x != y {
            break;
        }
        at += BLOCK;
    }
    let (a, b) = (
        a.get(at..).unwrap_or_default(),
        b.get(at..).unwrap_or_default(),
    );
    at + a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Where two texts that differ within their first `margin` bytes run equal again: offsets
/// (old, new) of a line start past the difference from which both go on alike for at least
/// a stretch.
/// A stretch of the old text a little ahead is looked for in the new one, further ahead
/// each time it is not found (the change is longer than the stretch skipped).
fn resync(old: &str, new: &str, sizes: &Sizes) -> Option<(usize, usize)> {
    /// Places a stretch is tried at before looking further ahead (repeated text).
    const TRIES: usize = 16;
    let (old_bytes, new_bytes) = (old.as_bytes(), new.as_bytes());
    let mut ahead = sizes.margin.max(sizes.anchor);
    while ahead < old.len() {
        let start = line_start_from(old_bytes, ahead)?;
        let anchor = old_bytes.get(start..start + sizes.anchor)?;
        let window = new_bytes.get(..(start + 2 * ahead).min(new.len()))?;
        let found = memchr::memmem::find_iter(window, anchor)
            .take(TRIES)
            .find_map(|at| cut_at(old_bytes, new_bytes, (start, at), ahead, sizes.margin));
        if let Some((a, b)) = found {
            if old.is_char_boundary(a) && new.is_char_boundary(b) {
                return Some((a, b));
            }
        }
        ahead = ahead.saturating_mul(8);
    }
    None
}

/// The cut for a stretch found at `start` of the old text and `at` of the new: if the two
/// go on equal for `ahead` bytes, a line start `margin` bytes into the equal run that
/// reaches back from there, or its last (old, new).
fn cut_at(
    old: &[u8],
    new: &[u8],
    (start, at): (usize, usize),
    ahead: usize,
    margin: usize,
) -> Option<(usize, usize)> {
    let check = ahead
        .min(old.len() - start)
        .min(new.len().saturating_sub(at));
    if old.get(start..start + check)? != new.get(at..at + check)? {
        return None;
    }
    let back = old
        .get(..start)?
        .iter()
        .rev()
        .zip(new.get(..at)?.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    // The run holds the newline before `start`, so it holds a line start.
    let (a, b) = (start - back, at - back);
    let from = (a + margin).min(start.saturating_sub(1)).max(a);
    let d = from - a + memchr::memchr(b'\n', old.get(from..start)?)? + 1;
    Some((a + d, b + d))
}

/// The start of the first line that begins at or after byte `at` of `text`.
pub(super) fn line_start_from(text: &[u8], at: usize) -> Option<usize> {
    let rest = text.get(at.saturating_sub(1)..)?;
    Some(at.saturating_sub(1) + memchr::memchr(b'\n', rest)? + 1)
}
