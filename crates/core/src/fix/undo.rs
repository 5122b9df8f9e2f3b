//! The text as read, kept as what the fixes replaced rather than as a second copy.
//!
//! `fix` needs a file's text as read after fixing it: for the diff, and for the write-back,
//! which refuses to replace a file that no longer holds it. Kept whole beside the text each
//! round lints, it held the file three times at the peak (the text as read, the fixed text
//! and the fixed text's tree); what the fixes change is a few bytes each. So the text as
//! read is kept as pieces of the current text and the bytes the fixes replaced, carried
//! through each round, and rebuilt only when asked for.

use std::borrow::Cow;
use std::hash::{BuildHasher, Hasher};
use std::ops::Range;

use super::align::{line_start_from, Aligned};
use crate::edit::json_edit::Replaced;

/// A text as read, as pieces of a later text (the one it is an undo of).
#[derive(Debug, Clone)]
pub struct Undo {
    pieces: Vec<Piece>,
    /// The length and block hash of the text as read, so a rebuild can be checked without
    /// holding that text.
    print: (usize, u64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Bytes the later text still holds, where it holds them.
    Kept(Range<usize>),
    /// Bytes the fixes replaced.
    Old(String),
}

impl Undo {
    /// The undo of no edit: `text` as pieces of itself, `print` being its [`print`].
    pub fn of(text: &str, print: (usize, u64)) -> Undo {
        let mut pieces = Vec::new();
        push(&mut pieces, Piece::Kept(0..text.len()));
        Undo { pieces, print }
    }

    /// `before` as pieces of the text `applied` made of it, for going back one round:
    /// without the hash [`Undo::of`] computes, so never checked with [`Undo::holds`].
    pub fn of_round(before: &str, applied: &[Replaced]) -> Undo {
        Undo::of(before, (before.len(), 0)).after(before, applied)
    }

    /// The same text as read, as pieces of the text `applied` made of `before` (the text
    /// this is an undo of): kept bytes an edit replaced become old bytes, and the rest move
    /// to where the edits before them put them.
    pub fn after(&self, before: &str, applied: &[Replaced]) -> Undo {
        let mut pieces = Vec::with_capacity(self.pieces.len() + 2 * applied.len());
        // Edits ordered by where they start; `next` is the first not wholly before `pos`
        // (an insert at `pos` is before it: its text precedes the bytes kept from there).
        let mut next = 0;
        let mut last: Option<&Replaced> = None;
        for piece in &self.pieces {
            let range = match piece {
                Piece::Old(text) => {
                    push(&mut pieces, Piece::Old(text.clone()));
                    continue;
                }
                Piece::Kept(range) => range.clone(),
            };
            let mut pos = range.start;
            while pos < range.end {
                while let Some(edit) = applied.get(next).filter(|e| e.old.end <= pos) {
                    last = Some(edit);
                    next += 1;
                }
                match applied.get(next) {
                    // An edit replaced the bytes from `pos`.
                    Some(edit) if edit.old.start <= pos => {
                        let end = edit.old.end.min(range.end);
                        let old = before.get(pos..end).unwrap_or_default();
                        push(&mut pieces, Piece::Old(old.to_string()));
                        pos = end;
                    }
                    // Unchanged up to the next edit: where the last edit left them.
                    edit => {
                        let end = edit.map_or(range.end, |e| e.old.start.min(range.end));
                        let to = last.map_or(pos, |l| l.new.end + (pos - l.old.end));
                        push(&mut pieces, Piece::Kept(to..to + (end - pos)));
                        pos = end;
                    }
                }
            }
        }
        Undo {
            pieces,
            print: self.print,
        }
    }

    /// The text as read, rebuilt from `current` (the text this is an undo of).
    pub fn rebuild(&self, current: &str) -> String {
        let mut text = String::with_capacity(self.print.0);
        for chunk in self.chunks(current) {
            text.push_str(chunk);
        }
        text
    }

    /// Whether the pieces rebuild the text as read from `current`: its length and hash,
    /// computed without building it.
    pub fn holds(&self, current: &str) -> bool {
        print_of(self.chunks(current)) == self.print
    }

    /// Whether the text as read is `current` itself (fixes that undid one another).
    pub fn is_identity(&self, current: &str) -> bool {
        if self.print.0 != current.len() {
            return false;
        }
        let mut at = 0;
        for piece in &self.pieces {
            let chunk = match piece {
                // Bytes kept where they are: the same bytes, not compared.
                Piece::Kept(range) if range.start == at => {
                    at = range.end;
                    continue;
                }
                Piece::Kept(range) => current.get(range.clone()).unwrap_or_default(),
                Piece::Old(text) => text.as_str(),
            };
            match current.as_bytes().get(at..at + chunk.len()) {
                Some(here) if here == chunk.as_bytes() => at += chunk.len(),
                _ => return false,
            }
        }
        at == current.len()
    }

    /// The length of the text as read.
    pub fn len(&self) -> usize {
        self.print.0
    }

    /// The text as read and `current`, cut into pieces of whole lines that pair up (the old
    /// pieces concatenate to the text as read, the new ones to `current`), as
    /// `align::aligned_pieces` cuts two whole texts: the text between two changes is a piece
    /// of its own, equal on both sides, when it holds a line start `margin` bytes from each,
    /// so only the pieces around the changes are built and diffed.
    pub fn aligned<'s>(&'s self, current: &'s str, margin: usize) -> Aligned<'s> {
        // The stretches kept, each cut where its equal piece starts and ends: (piece, cut
        // start, cut end), with offsets in `current`.
        let bytes = current.as_bytes();
        let last = self.pieces.len().saturating_sub(1);
        let mut cuts: Vec<(usize, usize, usize)> = Vec::new();
        for (i, piece) in self.pieces.iter().enumerate() {
            let Piece::Kept(range) = piece else { continue };
            let after_change = i > 0 || range.start > 0;
            let before_change = i < last || range.end < current.len();
            let from = if after_change {
                // At least a byte in: the byte before a cut is in the stretch kept.
                let at = range.start.saturating_add(margin.max(1));
                line_start_from(bytes, at).filter(|&c| c <= range.end)
            } else {
                Some(range.start)
            };
            let to = if before_change {
                let at = range.end.checked_sub(margin).filter(|&at| at > range.start);
                at.and_then(|at| bytes.get(range.start..at))
                    .and_then(|head| memchr::memrchr(b'\n', head))
                    .map(|nl| range.start + nl + 1)
            } else {
                Some(range.end)
            };
            if let (Some(from), Some(to)) = (from, to) {
                if from <= to {
                    cuts.push((i, from, to));
                }
            }
        }
        let mut aligned = Vec::with_capacity(2 * cuts.len() + 1);
        // The change before each equal piece, from the end of the one before it.
        let mut at: Option<(usize, usize)> = None;
        for &(i, from, to) in &cuts {
            self.push_change(current, at, Some((i, from)), &mut aligned);
            if let Some(equal) = current.get(from..to).filter(|e| !e.is_empty()) {
                aligned.push((Cow::Borrowed(equal), equal));
            }
            at = Some((i, to));
        }
        self.push_change(current, at, None, &mut aligned);
        aligned
    }

    /// Pushes the piece from `start` to `end`, each a piece index and an offset in
    /// `current` inside that kept piece (`None`: the start or end of the texts), unless it
    /// is empty on both sides.
    fn push_change<'s>(
        &'s self,
        current: &'s str,
        start: Option<(usize, usize)>,
        end: Option<(usize, usize)>,
        aligned: &mut Aligned<'s>,
    ) {
        let new_from = start.map_or(0, |(_, at)| at);
        let new_to = end.map_or(current.len(), |(_, at)| at);
        let first = start.map_or(0, |(i, _)| i);
        let last = end.map_or(self.pieces.len(), |(i, _)| i + 1);
        let mut old = String::new();
        for (i, piece) in self.pieces.iter().enumerate().take(last).skip(first) {
            let chunk = match piece {
                Piece::Old(text) => text.as_str(),
                Piece::Kept(range) => {
                    let from = if i == first {
                        new_from.max(range.start)
                    } else {
                        range.start
                    };
                    let to = match end {
                        Some((j, at)) if j == i => at.min(range.end),
                        _ => range.end,
                    };
                    current.get(from..to).unwrap_or_default()
                }
            };
            old.push_str(chunk);
        }
        let new = current.get(new_from..new_to).unwrap_or_default();
        if !old.is_empty() || !new.is_empty() {
            aligned.push((Cow::Owned(old), new));
        }
    }

    /// The text as read, piece by piece.
    fn chunks<'s>(&'s self, current: &'s str) -> impl Iterator<Item = &'s str> {
        self.pieces.iter().map(move |piece| match piece {
            Piece::Kept(range) => current.get(range.clone()).unwrap_or_default(),
            Piece::Old(text) => text.as_str(),
        })
    }
}

/// Appends a piece, joining it to the last when they continue one another.
fn push(pieces: &mut Vec<Piece>, piece: Piece) {
    match (pieces.last_mut(), piece) {
        (_, Piece::Kept(range)) if range.is_empty() => {}
        (_, Piece::Old(text)) if text.is_empty() => {}
        (Some(Piece::Kept(last)), Piece::Kept(range)) if last.end == range.start => {
            last.end = range.end;
        }
        (Some(Piece::Old(last)), Piece::Old(text)) => last.push_str(&text),
        (_, piece) => pieces.push(piece),
    }
}

/// The length and hash of `text`, as [`Undo::holds`] computes them for a text in pieces.
pub fn print(text: &str) -> (usize, u64) {
    print_of(std::iter::once(text))
}

/// The length and hash of a text given in chunks, the same however it is cut: the chunks
/// are hashed in blocks of a fixed size.
fn print_of<'t>(chunks: impl Iterator<Item = &'t str>) -> (usize, u64) {
    const BLOCK: usize = 1 << 16;
    // foldhash, not SipHash: every round hashes a whole text, and flood resistance buys
    // nothing against a text compared only with its own earlier rounds.
    let mut hasher = foldhash::quality::FixedState::with_seed(0).build_hasher();
    let mut block: Vec<u8> = Vec::new();
    let mut len = 0;
    for chunk in chunks {
        let mut bytes = chunk.as_bytes();
        len += bytes.len();
        while !bytes.is_empty() {
            if block.is_empty() {
                if let Some((whole, rest)) = bytes.split_at_checked(BLOCK) {
                    hasher.write(whole);
                    bytes = rest;
                    continue;
                }
            }
            let (head, rest) = bytes.split_at(bytes.len().min(BLOCK - block.len()));
            block.extend_from_slice(head);
            bytes = rest;
            if block.len() == BLOCK {
                hasher.write(&block);
                block.clear();
            }
        }
    }
    hasher.write(&block);
    (len, hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::json_edit::place;
    use crate::finding::Edit;
    use proptest::prelude::*;

    /// The text the edits make, by both ways of applying them, and where they went.
    fn apply_mapped(text: &str, edits: &[Edit]) -> (String, Vec<Replaced>) {
        let placed = place(text, edits);
        let made = placed.apply(text);
        assert_eq!(
            placed.apply_in_place(text.to_string()).as_deref(),
            Some(made.as_str())
        );
        assert_eq!(placed.changes_nothing(text), made == text);
        (made, placed.replaced)
    }

    fn edit(start: usize, end: usize, content: &str) -> Edit {
        Edit {
            start,
            end,
            content: content.to_string(),
        }
    }

    #[test]
    fn rebuilds_the_text_as_read_over_rounds() {
        let read = "abcdefghij";
        let undo = Undo::of(read, print(read));
        let (one, applied) = apply_mapped(read, &[edit(2, 4, "XYZ"), edit(7, 7, "!")]);
        assert_eq!(one, "abXYZefg!hij");
        let undo = undo.after(read, &applied);
        assert_eq!(undo.rebuild(&one), read);
        // A second round replaces across an earlier edit and kept text.
        let (two, applied) = apply_mapped(&one, &[edit(3, 6, ""), edit(0, 0, "<")]);
        assert_eq!(two, "<abXfg!hij");
        let undo = undo.after(&one, &applied);
        assert_eq!(undo.rebuild(&two), read);
        assert!(undo.holds(&two));
        assert!(!undo.is_identity(&two));
        assert!(Undo::of(read, print(read)).is_identity(read));
    }

    #[test]
    fn fixes_that_undo_one_another_leave_the_text_as_read() {
        let read = "[1, 2]";
        let (one, applied) = apply_mapped(read, &[edit(1, 4, "")]);
        let undo = Undo::of(read, print(read)).after(read, &applied);
        let (two, applied) = apply_mapped(&one, &[edit(1, 1, "1, ")]);
        let undo = undo.after(&one, &applied);
        assert_eq!(two, read);
        assert!(undo.is_identity(&two));
        assert_eq!(undo.rebuild(&two), read);
    }

    #[test]
    fn a_hash_in_blocks_does_not_depend_on_the_cut() {
        let text = "é".repeat(70_000);
        let whole = print_of(std::iter::once(text.as_str()));
        let (a, b) = text.split_at(2 * 33_333);
        assert_eq!(print_of([a, b].into_iter()), whole);
        assert_ne!(print_of(std::iter::once(a)), whole);
    }

    /// Edits over a text: ranges on char boundaries, any order, overlaps included (those
    /// `apply_mapped` leaves out).
    fn edits_over(len: usize) -> impl Strategy<Value = Vec<Edit>> {
        prop::collection::vec((0..=len, 0..=4usize, "[a-cé\n]{0,4}"), 0..6).prop_map(move |raw| {
            raw.into_iter()
                .map(|(start, width, content)| edit(start, (start + width).min(len), &content))
                .collect()
        })
    }

    proptest! {
        /// However many rounds of edits, the pieces rebuild the text as read, and say
        /// whether it is the current text.
        #[test]
        fn pieces_rebuild_the_text_as_read(
            read in "[a-d\n]{0,40}",
            rounds in prop::collection::vec(edits_over(60), 1..6),
        ) {
            let mut undo = Undo::of(&read, print(&read));
            let mut current = read.clone();
            for edits in rounds {
                let (next, applied) = apply_mapped(&current, &edits);
                undo = undo.after(&current, &applied);
                current = next;
                prop_assert_eq!(undo.rebuild(&current), read.clone());
                prop_assert!(undo.holds(&current));
                prop_assert_eq!(undo.is_identity(&current), current == read);
            }
        }
    }
}
