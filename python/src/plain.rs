//! Python values read off the objects as plain JSON, for the guards (issue 42), where
//! `json.dumps` of a history cost as much as its lint. Only plain JSON is read: dicts with
//! `str` keys, lists and tuples, `str`, `int`, finite `float`, `bool` and `None`. Anything
//! else (another key type, NaN, a date, bytes, a nesting deeper than any history, a string
//! with a lone surrogate) gives `None` or `false`, and the caller takes the `json.dumps` path
//! it always took, so no value is ever read differently.
//!
//! Two readers share what counts as plain ([`plain`]): [`plain_bytes`] writes the objects as
//! compact JSON text, and [`finds_nothing`] tells a clean history (the usual case) without
//! that text, from the tree the linter reads built straight off the objects.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toolcheck_core::finding::Finding;
use toolcheck_core::lint::LintOptions;
use toolcheck_core::tree::{Map, Number, Str, Value};

/// Deeper than this is no history (and may be a cycle): `None`.
const DEPTH: usize = 200;

/// Nesting deeper than this is left to the text, which the linter rejects past 127 levels as
/// serde_json does: no history nests this deep.
const TREE_DEPTH: usize = 100;

/// The most string bytes a tree built off the objects holds. It borrows them, so it is
/// checked with the interpreter's lock held; a bigger history is written as text, which is
/// checked without it (and on the pool when it is big), as before.
const TREE_BYTES: usize = 64 << 10;

/// A plain JSON value, as a Python object is one.
enum Plain<'b, 'py> {
    Null,
    Str(&'b Bound<'py, PyString>),
    Dict(&'b Bound<'py, PyDict>),
    List(&'b Bound<'py, PyList>),
    Tuple(&'b Bound<'py, PyTuple>),
    Bool(bool),
    Int,
    Float(f64),
}

/// What plain JSON value `obj` is, if any. Its exact type is tried first: that is what
/// `json.loads` and literals make, and it is told by comparing a pointer, where a subclass
/// check is a call into the interpreter. No object is of two of these types (`bool` has no
/// subclasses and is told before `int`, which it subclasses).
#[inline(always)]
fn plain<'b, 'py>(obj: &'b Bound<'py, PyAny>) -> Option<Plain<'b, 'py>> {
    if obj.is_none() {
        return Some(Plain::Null);
    }
    if let Ok(s) = obj.downcast_exact::<PyString>() {
        return Some(Plain::Str(s));
    }
    if let Ok(dict) = obj.downcast_exact::<PyDict>() {
        return Some(Plain::Dict(dict));
    }
    if let Ok(list) = obj.downcast_exact::<PyList>() {
        return Some(Plain::List(list));
    }
    if let Ok(b) = obj.downcast_exact::<PyBool>() {
        return Some(Plain::Bool(b.is_true()));
    }
    if obj.is_exact_instance_of::<PyInt>() {
        return Some(Plain::Int);
    }
    if let Ok(f) = obj.downcast_exact::<PyFloat>() {
        return Some(Plain::Float(f.value()));
    }
    // Subclasses (a `str` enum, an `OrderedDict`), in the order the types were tried.
    if let Ok(s) = obj.downcast::<PyString>() {
        return Some(Plain::Str(s));
    }
    if let Ok(dict) = obj.downcast::<PyDict>() {
        return Some(Plain::Dict(dict));
    }
    if let Ok(list) = obj.downcast::<PyList>() {
        return Some(Plain::List(list));
    }
    if obj.downcast::<PyInt>().is_ok() {
        return Some(Plain::Int);
    }
    if let Ok(f) = obj.downcast::<PyFloat>() {
        return Some(Plain::Float(f.value()));
    }
    if let Ok(tuple) = obj.downcast::<PyTuple>() {
        return Some(Plain::Tuple(tuple));
    }
    None
}

/// An `int` as a JSON number: `None` when it is wider than 64 bits (rare enough for the
/// `json.dumps` path).
fn int(obj: &Bound<'_, PyAny>) -> Option<Number<'static>> {
    match obj.extract::<i64>() {
        Ok(n) => Some(Number::from(n)),
        Err(_) => obj.extract::<u64>().ok().map(Number::from),
    }
}

/// Whether linting `obj`'s JSON text (as [`plain_bytes`] writes it) as a file named `name`
/// finds nothing `counts` counts, told from a tree of the objects without writing that
/// text: writing and parsing it back were a third of a clean guard call. `false` when the
/// objects are not plain JSON, nest deeper than [`TREE_DEPTH`], hold more than
/// [`TREE_BYTES`] of text, or a finding counts: the caller then lints the text, which places
/// what it finds.
pub fn finds_nothing(
    obj: &Bound<'_, PyAny>,
    name: &str,
    opts: &LintOptions,
    counts: impl Fn(&Finding) -> bool,
) -> bool {
    let strings = typed_arena::Arena::new();
    let mut builder = Builder {
        strings: &strings,
        left: TREE_BYTES,
    };
    match builder.value(obj, 0) {
        Some(tree) => toolcheck_core::embed::finds_nothing(name, tree, opts, counts),
        None => false,
    }
}

/// Builds a tree off Python objects. The tree borrows each string's UTF-8 text from its
/// object, which `strings` holds (a reference each) until the tree is dropped.
struct Builder<'a, 'py> {
    strings: &'a typed_arena::Arena<Bound<'py, PyString>>,
    /// String bytes still allowed (see [`TREE_BYTES`]).
    left: usize,
}

impl<'a, 'py> Builder<'a, 'py> {
    /// `obj` as a tree, or `None` where [`write`] gives `false` (and past [`TREE_DEPTH`]
    /// and [`TREE_BYTES`]).
    fn value(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> Option<Value<'a>> {
        if depth > TREE_DEPTH {
            return None;
        }
        Some(match plain(obj)? {
            Plain::Null => Value::Null,
            Plain::Str(s) => Value::String(self.string(s)?),
            Plain::Dict(dict) => {
                let mut members = Vec::with_capacity(dict.len());
                for (key, value) in dict.iter() {
                    let key = self.string(key.downcast::<PyString>().ok()?)?;
                    members.push((key, self.value(&value, depth + 1)?));
                }
                Value::Object(members.into_iter().collect::<Map<'a>>())
            }
            Plain::List(list) => self.items(list.iter(), list.len(), depth)?,
            Plain::Tuple(tuple) => self.items(tuple.iter(), tuple.len(), depth)?,
            Plain::Bool(b) => Value::Bool(b),
            Plain::Int => Value::Number(int(obj)?),
            Plain::Float(f) => Value::Number(Number::from_f64(f)?),
        })
    }

    /// A string (a value or a key), borrowed from its object (`None` for a lone surrogate,
    /// which has no UTF-8 text).
    #[inline(always)]
    fn string(&mut self, s: &Bound<'py, PyString>) -> Option<Str<'a>> {
        let held: &'a Bound<'py, PyString> = self.strings.alloc(s.clone());
        let text = held.to_str().ok()?;
        self.left = self.left.checked_sub(text.len())?;
        Some(Str::from(text))
    }

    fn items(
        &mut self,
        items: impl Iterator<Item = Bound<'py, PyAny>>,
        len: usize,
        depth: usize,
    ) -> Option<Value<'a>> {
        let mut out = Vec::with_capacity(len);
        for item in items {
            out.push(self.value(&item, depth + 1)?);
        }
        Some(Value::Array(out))
    }
}

/// `obj` as compact JSON bytes, or `None` when it is not plain JSON.
#[pyfunction]
pub fn plain_json(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Option<Py<PyBytes>>> {
    Ok(plain_bytes(obj).map(|out| PyBytes::new(py, &out).unbind()))
}

/// `obj` as compact JSON bytes, or `None` when it is not plain JSON: what a guard lints
/// without making a Python `bytes` of it first.
pub fn plain_bytes(obj: &Bound<'_, PyAny>) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    write(obj, &mut out, 0).then_some(out)
}

fn write(obj: &Bound<'_, PyAny>, out: &mut Vec<u8>, depth: usize) -> bool {
    if depth > DEPTH {
        return false;
    }
    let Some(value) = plain(obj) else {
        return false;
    };
    match value {
        Plain::Null => out.extend_from_slice(b"null"),
        Plain::Str(s) => return write_str(s, out),
        Plain::Dict(dict) => {
            out.push(b'{');
            for (i, (key, value)) in dict.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let Ok(key) = key.downcast::<PyString>() else {
                    return false;
                };
                if !write_str(key, out) {
                    return false;
                }
                out.push(b':');
                if !write(&value, out, depth + 1) {
                    return false;
                }
            }
            out.push(b'}');
        }
        Plain::List(list) => return write_items(list.iter(), out, depth),
        Plain::Tuple(tuple) => return write_items(tuple.iter(), out, depth),
        Plain::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
        // The same text as the tree's numbers (`Number`'s), so both readers agree.
        Plain::Int => match int(obj) {
            Some(n) => out.extend_from_slice(n.as_str().as_bytes()),
            None => return false,
        },
        Plain::Float(f) => match Number::from_f64(f) {
            Some(n) => out.extend_from_slice(n.as_str().as_bytes()),
            None => return false,
        },
    }
    true
}

/// A string (a value or a key), quoted and escaped.
fn write_str(s: &Bound<'_, PyString>, out: &mut Vec<u8>) -> bool {
    s.to_str()
        .map(|s| toolcheck_core::json::push_quoted(out, s))
        .is_ok()
}

fn write_items<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    out: &mut Vec<u8>,
    depth: usize,
) -> bool {
    out.push(b'[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if !write(&item, out, depth + 1) {
            return false;
        }
    }
    out.push(b']');
    true
}
