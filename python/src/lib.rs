//! `toolcheck._toolcheck`: the Rust side of the Python package. It converts between Python
//! and the root crate's embedding API (`toolcheck::embed`); every finding comes from the
//! same pipeline as the command line, and the objects are the `Diagnostic`s that
//! `--output-format json` prints.

use std::sync::{Arc, Mutex};

use clap::Parser;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use rayon::prelude::*;
use serde_json::Value;

use toolcheck::embed;
use toolcheck::lint::LintOptions;
use toolcheck::report::Diagnostic;

create_exception!(
    _toolcheck,
    FixError,
    PyException,
    "A text could not be fixed (undecodable, or an internal error of the fix loop); it was left unchanged."
);

/// Lint options, checked once and shared by every call that uses them.
#[pyclass(frozen, module = "toolcheck._toolcheck")]
struct Options {
    inner: LintOptions,
}

#[pymethods]
impl Options {
    #[new]
    #[pyo3(signature = (input_format=None, tools=Vec::new(), targets=Vec::new(), select=Vec::new(), ignore=Vec::new(), unpaired=None))]
    fn new(
        input_format: Option<String>,
        tools: Vec<String>,
        targets: Vec<String>,
        select: Vec<String>,
        ignore: Vec<String>,
        unpaired: Option<String>,
    ) -> PyResult<Self> {
        let inner = embed::Options {
            input_format,
            tools,
            targets,
            select,
            ignore,
            unpaired,
        }
        .build()
        .map_err(PyValueError::new_err)?;
        Ok(Options { inner })
    }
}

/// The thread pool of this process, rebuilt after a fork (a forked child, as in
/// `datasets.map(num_proc=N)`, has none of its parent's threads: a pool created before the
/// fork would wait forever) or when another size is asked for.
struct Pool {
    pid: u32,
    threads: usize,
    pool: Arc<rayon::ThreadPool>,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

fn pool(threads: Option<usize>) -> PyResult<Arc<rayon::ThreadPool>> {
    let want = threads.filter(|&n| n > 0).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let pid = std::process::id();
    let mut guard = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = guard.as_ref() {
        if p.pid == pid && p.threads == want {
            return Ok(p.pool.clone());
        }
    }
    if let Some(old) = guard.take() {
        if old.pid != pid {
            // The parent's pool: its threads do not exist here, so never touch it again.
            std::mem::forget(old);
        }
    }
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(want)
        .build()
        .map_err(|e| PyValueError::new_err(format!("cannot start {want} threads: {e}")))?;
    let built = Arc::new(built);
    *guard = Some(Pool {
        pid,
        threads: want,
        pool: built.clone(),
    });
    Ok(built)
}

/// The bytes of a `str` (UTF-8) or of a bytes-like object.
fn record_bytes(obj: &Bound<'_, PyAny>, index: Option<usize>) -> PyResult<Vec<u8>> {
    if let Ok(b) = obj.downcast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(v) = obj.extract::<Vec<u8>>() {
        return Ok(v);
    }
    let what = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into());
    Err(PyTypeError::new_err(match index {
        Some(i) => {
            format!("record {i} is a {what}; expected str or bytes (one JSON document each)")
        }
        None => format!("expected str or bytes, got {what}"),
    }))
}

fn value_to_py(py: Python<'_>, value: &Value) -> PyResult<PyObject> {
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any().unbind()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any().unbind()
            } else if let Some(f) = n.as_f64() {
                f.into_pyobject(py)?.into_any().unbind()
            } else {
                n.to_string().into_pyobject(py)?.into_any().unbind()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(value_to_py(py, item)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, value_to_py(py, v)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// Findings as a list of dicts with the fields of `--output-format json`.
fn diagnostics_to_py(py: Python<'_>, diagnostics: &[Diagnostic]) -> PyResult<Py<PyList>> {
    let list = PyList::empty(py);
    for d in diagnostics {
        let value = serde_json::to_value(d)
            .map_err(|e| PyValueError::new_err(format!("cannot convert a finding: {e}")))?;
        list.append(value_to_py(py, &value)?)?;
    }
    Ok(list.unbind())
}

/// Lints one text (a JSON document or JSONL) as a file named `name`.
#[pyfunction]
#[pyo3(signature = (options, data, name))]
fn lint_text(
    py: Python<'_>,
    options: &Options,
    data: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<Py<PyList>> {
    let bytes = record_bytes(data, None)?;
    let pool = pool(None)?;
    let opts = &options.inner;
    let found = py.allow_threads(|| pool.install(|| embed::lint(name, bytes, opts)));
    diagnostics_to_py(py, &found)
}

/// Lints many records in parallel, each as a file named `name`: one list of findings per
/// record, in order.
#[pyfunction]
#[pyo3(signature = (options, records, name, threads=None))]
fn lint_many(
    py: Python<'_>,
    options: &Options,
    records: &Bound<'_, PyAny>,
    name: &str,
    threads: Option<usize>,
) -> PyResult<Py<PyList>> {
    let mut texts: Vec<Vec<u8>> = Vec::new();
    for (i, item) in records.try_iter()?.enumerate() {
        texts.push(record_bytes(&item?, Some(i))?);
    }
    let pool = pool(threads)?;
    let opts = &options.inner;
    let found: Vec<Vec<Diagnostic>> = py.allow_threads(|| {
        pool.install(|| {
            texts
                .into_par_iter()
                .map(|bytes| embed::lint_record(name, bytes, opts))
                .collect()
        })
    });
    let out = PyList::empty(py);
    for diagnostics in &found {
        out.append(diagnostics_to_py(py, diagnostics)?)?;
    }
    Ok(out.unbind())
}

/// Memory an Arrow buffer holds, from its address and size as pyarrow's `Buffer.address`
/// and `Buffer.size` give them (0 for an absent buffer).
///
/// abi3 for Python 3.9 has no buffer protocol, so the Python wrapper passes addresses.
///
/// # Safety
///
/// `addr` must point to `len` readable bytes that stay alive and unchanged for `'a`.
unsafe fn arrow_slice<'a>(addr: usize, len: usize) -> &'a [u8] {
    if addr == 0 || len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(addr as *const u8, len) }
}

/// Lints the records of an Arrow string array given as its buffers (read in place, no copy
/// of the array): `offsets` (int32, or int64 when `large`), `data`, the validity bitmap
/// (address 0: no nulls), and the array's `offset` and `length`. Null entries get no
/// findings. Returns one list of findings per entry.
#[pyfunction]
#[pyo3(signature = (options, buffers, offset, length, large, name, threads=None))]
// The Python call's arguments, one for one (`py` is implicit there).
#[allow(clippy::too_many_arguments)]
fn lint_arrow_buffers(
    py: Python<'_>,
    options: &Options,
    buffers: [(usize, usize); 3],
    offset: usize,
    length: usize,
    large: bool,
    name: &str,
    threads: Option<usize>,
) -> PyResult<Py<PyList>> {
    let [validity, offsets, data] = buffers;
    // SAFETY: the addresses and sizes come from the buffers of a live pyarrow array that the
    // caller (`toolcheck._arrow_findings`, the only caller) holds until this call returns, and
    // Arrow buffers are immutable. Every offset read from them is bounds-checked below.
    let (validity, offsets, data) = unsafe {
        (
            (validity.0 != 0).then(|| arrow_slice(validity.0, validity.1)),
            arrow_slice(offsets.0, offsets.1),
            arrow_slice(data.0, data.1),
        )
    };
    let width = if large { 8 } else { 4 };
    let read_offset = |i: usize| -> Option<usize> {
        let at = i.checked_mul(width)?;
        let raw = offsets.get(at..at + width)?;
        let v = if large {
            i64::from_le_bytes(raw.try_into().ok()?)
        } else {
            i64::from(i32::from_le_bytes(raw.try_into().ok()?))
        };
        usize::try_from(v).ok()
    };
    let mut spans: Vec<Option<(usize, usize)>> = Vec::with_capacity(length);
    for i in 0..length {
        let j = offset + i;
        let valid =
            validity.is_none_or(|bits| bits.get(j / 8).is_some_and(|b| b & (1 << (j % 8)) != 0));
        if !valid {
            spans.push(None);
            continue;
        }
        let (Some(start), Some(end)) = (read_offset(j), read_offset(j + 1)) else {
            return Err(PyValueError::new_err(format!(
                "arrow offsets buffer too short for entry {i}"
            )));
        };
        if start > end || end > data.len() {
            return Err(PyValueError::new_err(format!(
                "arrow offsets out of range for entry {i}"
            )));
        }
        spans.push(Some((start, end)));
    }
    let pool = pool(threads)?;
    let opts = &options.inner;
    let found: Vec<Vec<Diagnostic>> = py.allow_threads(|| {
        pool.install(|| {
            spans
                .into_par_iter()
                .map(|span| match span {
                    Some((start, end)) => embed::lint_record(name, data[start..end].to_vec(), opts),
                    None => Vec::new(),
                })
                .collect()
        })
    });
    let out = PyList::empty(py);
    for diagnostics in &found {
        out.append(diagnostics_to_py(py, diagnostics)?)?;
    }
    Ok(out.unbind())
}

/// Applies fixes to one text; returns `(fixed_text, changed, applied, unsafe_left,
/// remaining_findings)`.
#[pyfunction]
#[pyo3(signature = (options, data, name, unsafe_fixes=false))]
fn fix_text(
    py: Python<'_>,
    options: &Options,
    data: &Bound<'_, PyAny>,
    name: &str,
    unsafe_fixes: bool,
) -> PyResult<(String, bool, usize, usize, Py<PyList>)> {
    let bytes = record_bytes(data, None)?;
    let pool = pool(None)?;
    let opts = &options.inner;
    let fixed = py
        .allow_threads(|| pool.install(|| embed::fix(name, bytes, opts, unsafe_fixes)))
        .map_err(FixError::new_err)?;
    let remaining = diagnostics_to_py(py, &fixed.remaining)?;
    Ok((
        fixed.text,
        fixed.changed,
        fixed.applied,
        fixed.unsafe_left,
        remaining,
    ))
}

/// Runs the command line with `argv` (program name first) and returns its exit code. Usage
/// errors, `--help` and `--version` print and return as the binary does.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.allow_threads(|| match toolcheck::cli::Cli::try_parse_from(argv) {
        Ok(cli) => toolcheck::app::run_code(cli.command),
        Err(e) => {
            // clap prints help and version to stdout, errors to stderr.
            let _ = e.print();
            u8::try_from(e.exit_code()).unwrap_or(2)
        }
    })
}

#[pymodule]
fn _toolcheck(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Options>()?;
    m.add_function(wrap_pyfunction!(lint_text, m)?)?;
    m.add_function(wrap_pyfunction!(lint_many, m)?)?;
    m.add_function(wrap_pyfunction!(lint_arrow_buffers, m)?)?;
    m.add_function(wrap_pyfunction!(fix_text, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add("FixError", m.py().get_type::<FixError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
