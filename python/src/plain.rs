//! Python values as JSON text, read off the objects: what the guards lint to tell a clean
//! history in one pass (issue 42), where `json.dumps` cost as much as the lint. Only plain
//! JSON is written: dicts with `str` keys, lists and tuples, `str`, `int`, finite `float`,
//! `bool` and `None`. Anything else (another key type, NaN, a date, bytes, a nesting deeper
//! than any history, a string with a lone surrogate) gives `None`, and the caller takes the
//! `json.dumps` path it always took, so no value is ever read differently.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// Deeper than this is no history (and may be a cycle): `None`.
const DEPTH: usize = 200;

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
    if obj.is_none() {
        out.extend_from_slice(b"null");
        return true;
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return write_str(s, out);
    }
    // Containers next, the most common after strings (neither can also be a number).
    if let Ok(dict) = obj.downcast::<PyDict>() {
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
        return true;
    }
    if let Ok(list) = obj.downcast::<PyList>() {
        return write_items(list.iter(), out, depth);
    }
    // `bool` before `int`, which it subclasses.
    if let Ok(b) = obj.downcast::<PyBool>() {
        out.extend_from_slice(if b.is_true() { b"true" } else { b"false" });
        return true;
    }
    if obj.downcast::<PyInt>().is_ok() {
        // Written straight into `out`, as strings and floats are: no `String` per number.
        return match obj.extract::<i64>() {
            Ok(n) => serde_json::to_writer(&mut *out, &n).is_ok(),
            Err(_) => match obj.extract::<u64>() {
                Ok(n) => serde_json::to_writer(&mut *out, &n).is_ok(),
                // Wider than 64 bits: rare enough for the `json.dumps` path.
                Err(_) => false,
            },
        };
    }
    if let Ok(f) = obj.downcast::<PyFloat>() {
        let f = f.value();
        return f.is_finite() && serde_json::to_writer(&mut *out, &f).is_ok();
    }
    if let Ok(tuple) = obj.downcast::<PyTuple>() {
        return write_items(tuple.iter(), out, depth);
    }
    false
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
