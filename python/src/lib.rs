//! `toolcheck._toolcheck`: the Rust side of the Python package. It converts between Python
//! and the engine's embedding API (`toolcheck_core::embed`); every finding comes from the
//! same pipeline as the command line, and the objects are the `Diagnostic`s that
//! `--output-format json` prints.

use std::sync::{Arc, Mutex};

mod plain;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use rayon::prelude::*;
use serde_json::Value;

use toolcheck_core::embed;
use toolcheck_core::lint::LintOptions;
use toolcheck_core::report::Diagnostic;

// Rust's allocations in this module (trees, findings) go to mimalloc, as in the binary: a
// fifth of the lint's CPU was malloc and free. Python's own objects are not affected.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Options { inner })
    }
}

/// The thread pool of this process, rebuilt after a fork (a forked child, as in
/// `datasets.map(num_proc=N)`, has none of its parent's threads: a pool created before the
/// fork would wait forever) or when another size is asked for.
struct Pool {
    pid: u32,
    threads: usize,
    /// Whether it was built for "every core" (no `threads` given): such a call finds it again
    /// without asking the system how many cores there are, which reads cgroup files and cost
    /// about 30 µs on every `lint()`.
    every_core: bool,
    pool: Arc<rayon::ThreadPool>,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

fn pool(threads: Option<usize>) -> PyResult<Arc<rayon::ThreadPool>> {
    let asked = threads.filter(|&n| n > 0);
    if let Some(n) = asked {
        toolcheck_core::embed::check_threads(n)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
    }
    let pid = std::process::id();
    let mut guard = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = guard.as_ref() {
        let fits = match asked {
            None => p.every_core,
            Some(n) => p.threads == n,
        };
        if p.pid == pid && fits {
            return Ok(p.pool.clone());
        }
    }
    let want = asked.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    if let Some(p) = guard.as_mut() {
        if p.pid == pid && p.threads == want {
            p.every_core |= asked.is_none();
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
        every_core: asked.is_none(),
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
        // The interpreter's own UTF-8 of the text (abi3 of 3.10+), copied once.
        return Ok(s.to_str()?.as_bytes().to_vec());
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
        list.append(diagnostic_to_py(py, d)?)?;
    }
    Ok(list.unbind())
}

/// One finding as a dict with the fields of `--output-format json`, in its order, the
/// optional ones only when set, as serde writes them (a test in `python/tests` holds every
/// field to the command line's JSON). Built field by field with interned keys: through a
/// `serde_json::Value`, every finding cost a map, a string per key and a new Python key
/// string each.
fn diagnostic_to_py<'py>(py: Python<'py>, d: &Diagnostic) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "code"), d.code)?;
    dict.set_item(intern!(py, "rule"), d.rule)?;
    dict.set_item(intern!(py, "severity"), d.severity.as_str())?;
    dict.set_item(intern!(py, "message"), &d.message)?;
    dict.set_item(intern!(py, "help"), d.help.as_deref())?;
    dict.set_item(intern!(py, "path"), &d.path)?;
    dict.set_item(intern!(py, "format"), d.format)?;
    dict.set_item(intern!(py, "line"), d.line)?;
    dict.set_item(intern!(py, "column"), d.column)?;
    dict.set_item(intern!(py, "end_line"), d.end_line)?;
    dict.set_item(intern!(py, "end_column"), d.end_column)?;
    dict.set_item(intern!(py, "pointer"), &d.pointer)?;
    if let Some(location) = &d.location {
        dict.set_item(intern!(py, "location"), location)?;
    }
    let fix = match &d.fix {
        None => py.None(),
        Some(fix) => {
            let value = serde_json::to_value(fix)
                .map_err(|e| PyValueError::new_err(format!("cannot convert a fix: {e}")))?;
            value_to_py(py, &value)?
        }
    };
    dict.set_item(intern!(py, "fix"), fix)?;
    if let Some(id) = &d.tool_call_id {
        dict.set_item(intern!(py, "tool_call_id"), id)?;
    }
    if !d.providers.is_empty() {
        let names: Vec<&str> = d.providers.iter().map(|p| p.name()).collect();
        dict.set_item(intern!(py, "providers"), names)?;
    }
    if let Some(replay) = &d.replay {
        let value = serde_json::to_value(replay)
            .map_err(|e| PyValueError::new_err(format!("cannot convert a replay: {e}")))?;
        dict.set_item(intern!(py, "replay"), value_to_py(py, &value)?)?;
    }
    if let Some(span) = &d.span {
        let at = PyDict::new(py);
        at.set_item(intern!(py, "trace_id"), span.trace_id.as_deref())?;
        at.set_item(intern!(py, "span_id"), span.span_id.as_deref())?;
        at.set_item(intern!(py, "attribute"), span.attribute.as_deref())?;
        dict.set_item(intern!(py, "span"), at)?;
    }
    Ok(dict)
}

/// Texts up to this size are linted on the calling thread: handing a request-sized text to
/// the pool and waking the caller again costs more than the lint (a guard on every model
/// call), and such a text has no records to spread over threads.
const INLINE_BYTES: usize = 64 << 10;

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
    lint_one(py, options, bytes, name)
}

/// One text linted, outside the interpreter's lock: inline when small (see
/// [`INLINE_BYTES`]), else on the pool.
fn lint_one(py: Python<'_>, options: &Options, bytes: Vec<u8>, name: &str) -> PyResult<Py<PyList>> {
    let opts = &options.inner;
    let found = if bytes.len() <= INLINE_BYTES {
        py.allow_threads(|| embed::lint(name, bytes, opts))
    } else {
        let pool = pool(None)?;
        py.allow_threads(|| pool.install(|| embed::lint(name, bytes, opts)))
    };
    diagnostics_to_py(py, &found)
}

/// Lints `obj` as [`lint_text`] lints its JSON text, read off the objects as
/// `plain_json` reads them: `None` when it is not plain JSON. The guards' one call for a
/// history with findings (no `bytes` made of it, no second copy); [`clean_plain`] tells
/// the usual clean one first.
#[pyfunction]
#[pyo3(signature = (options, obj, name))]
fn lint_plain(
    py: Python<'_>,
    options: &Options,
    obj: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<Option<Py<PyList>>> {
    match plain::plain_bytes(obj) {
        Some(bytes) => lint_one(py, options, bytes, name).map(Some),
        None => Ok(None),
    }
}

/// Whether a guard for `provider` lets `obj` through: nothing in it that the guard acts on
/// (with `everything`, any finding; else an error that names `provider` among the providers
/// rejecting it, or names none, or any error when `provider` is `None`), as
/// `guard.relevant_findings` counts them in what [`lint_plain`] finds. Told off a tree built
/// from the objects, without their text, holding the interpreter's lock (see
/// `plain::finds_nothing`); `False` also where it cannot tell, and the caller lints the
/// text. `provider` is a canonical name (`moonshot`, not `kimi`).
#[pyfunction]
#[pyo3(signature = (options, obj, name, provider, everything))]
fn clean_plain(
    options: &Options,
    obj: &Bound<'_, PyAny>,
    name: &str,
    provider: Option<&str>,
    everything: bool,
) -> bool {
    plain::finds_nothing(obj, name, &options.inner, |f| {
        everything
            || (f.severity == toolcheck_core::rule_meta::Severity::Error
                && match provider {
                    None => true,
                    Some(name) => {
                        f.providers.is_empty() || f.providers.iter().any(|p| p.name() == name)
                    }
                })
    })
}

/// Lints files and folders as `toolcheck lint PATH...` does (config files aside).
#[pyfunction]
#[pyo3(signature = (options, paths, threads=None))]
fn lint_paths(
    py: Python<'_>,
    options: &Options,
    paths: Vec<String>,
    threads: Option<usize>,
) -> PyResult<Py<PyList>> {
    let pool = pool(threads)?;
    let opts = &options.inner;
    let found = py
        .allow_threads(|| pool.install(|| embed::lint_paths(&paths, opts)))
        .map_err(|e| PyErr::new::<pyo3::exceptions::PyOSError, _>(e.to_string()))?;
    diagnostics_to_py(py, &found)
}

/// How many records `lint_many` and `fix_many` copy out of Python, check and hand back at a
/// time. Holding every record's copy and findings at once cost a dataset of 200,000 records
/// hundreds of megabytes, and the first touch of each page is CPU too; a batch is enough to
/// keep every thread busy, and the next batch reuses its memory.
const BATCH: usize = 4096;

/// Reads `records` a batch at a time with `read` (the GIL held), runs `work` on each batch's
/// records in parallel on `pool` (the GIL released), and hands the results to `emit` in
/// order (the GIL held).
fn in_batches<T: Send, R: Send>(
    py: Python<'_>,
    records: &Bound<'_, PyAny>,
    pool: &rayon::ThreadPool,
    read: impl Fn(&Bound<'_, PyAny>, usize) -> PyResult<T>,
    work: impl Fn(T) -> R + Sync,
    mut emit: impl FnMut(R) -> PyResult<()>,
) -> PyResult<()> {
    let mut items = records.try_iter()?.enumerate().peekable();
    while items.peek().is_some() {
        let mut batch: Vec<T> = Vec::with_capacity(BATCH);
        for (i, item) in items.by_ref().take(BATCH) {
            batch.push(read(&item?, i)?);
        }
        let done: Vec<R> =
            py.allow_threads(|| pool.install(|| batch.into_par_iter().map(&work).collect()));
        for result in done {
            emit(result)?;
        }
    }
    Ok(())
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
    let pool = pool(threads)?;
    let opts = &options.inner;
    let out = PyList::empty(py);
    in_batches(
        py,
        records,
        &pool,
        |item, i| record_bytes(item, Some(i)),
        |bytes| embed::lint_record(name, bytes, opts),
        |found| out.append(diagnostics_to_py(py, &found)?),
    )?;
    Ok(out.unbind())
}

/// Memory an Arrow buffer holds, from its address and size as pyarrow's `Buffer.address`
/// and `Buffer.size` give them (0 for an absent buffer).
///
/// abi3 before Python 3.11 has no buffer protocol, so the Python wrapper passes addresses.
///
/// # Safety
///
/// Arrow's C data interface (`arrow/c/abi.h`): the structs a pyarrow array exports through
/// `__arrow_c_array__` as two PyCapsules. toolcheck only reads them; the capsules own them
/// and release them when collected.
#[repr(C)]
struct ArrowSchema {
    format: *const std::ffi::c_char,
    name: *const std::ffi::c_char,
    metadata: *const std::ffi::c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut std::ffi::c_void,
}

#[repr(C)]
struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const std::ffi::c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut std::ffi::c_void,
}

/// The struct a capsule named `name` holds, if it is one and has not been released.
fn capsule_struct<'py, T>(capsule: &Bound<'py, PyAny>, name: &std::ffi::CStr) -> PyResult<&'py T> {
    let capsule = capsule
        .downcast::<pyo3::types::PyCapsule>()
        .map_err(|_| PyTypeError::new_err("__arrow_c_array__ must return PyCapsules"))?;
    if capsule.name()? != Some(name) {
        return Err(PyTypeError::new_err(format!(
            "expected an Arrow {} capsule",
            name.to_string_lossy()
        )));
    }
    let pointer = capsule.pointer() as *const T;
    if pointer.is_null() {
        return Err(PyValueError::new_err("an empty Arrow capsule"));
    }
    // SAFETY: a capsule with this name holds this struct (the Arrow PyCapsule interface); it
    // lives as long as the capsule, which the caller holds for 'py.
    Ok(unsafe { &*pointer })
}

/// The records of a string array exported through the Arrow PyCapsule interface: the
/// validity bitmap, the offsets, the data, and whether offsets are 64-bit. Every size comes
/// from the export, and every offset read from it is bounds-checked by the caller.
struct ArrowStrings<'a> {
    validity: Option<&'a [u8]>,
    offsets: &'a [u8],
    data: &'a [u8],
    offset: usize,
    length: usize,
    large: bool,
}

/// `len` bytes at buffer `i` of `array`, as the export describes them.
///
/// # Safety
/// `array` must be a live, valid export whose buffer `i` holds at least `len` bytes.
unsafe fn arrow_buffer(array: &ArrowArray, i: usize, len: usize) -> &[u8] {
    // SAFETY: `n_buffers` (checked by the caller) buffers are there.
    let pointer = unsafe { *array.buffers.add(i) } as *const u8;
    if pointer.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(pointer, len) }
}

fn arrow_strings<'py>(
    schema: &Bound<'py, PyAny>,
    array: &Bound<'py, PyAny>,
) -> PyResult<ArrowStrings<'py>> {
    let schema: &ArrowSchema = capsule_struct(schema, c"arrow_schema")?;
    let array: &ArrowArray = capsule_struct(array, c"arrow_array")?;
    if schema.release.is_none() || array.release.is_none() || schema.format.is_null() {
        return Err(PyValueError::new_err("a released Arrow export"));
    }
    // SAFETY: a valid schema's format is a NUL-terminated string.
    let format = unsafe { std::ffi::CStr::from_ptr(schema.format) }.to_bytes();
    let large = match format {
        b"u" | b"z" => false,
        b"U" | b"Z" => true,
        other => {
            return Err(PyTypeError::new_err(format!(
                "expected a string or large_string array, not Arrow format {:?}",
                String::from_utf8_lossy(other)
            )))
        }
    };
    let (Ok(length), Ok(offset)) = (usize::try_from(array.length), usize::try_from(array.offset))
    else {
        return Err(PyValueError::new_err("negative Arrow length or offset"));
    };
    if array.n_buffers != 3 || array.buffers.is_null() {
        return Err(PyValueError::new_err("a string array has three buffers"));
    }
    let width = if large { 8 } else { 4 };
    let entries = offset
        .checked_add(length)
        .ok_or_else(|| PyValueError::new_err("Arrow offset out of range"))?;
    let offsets_len = entries
        .checked_add(1)
        .and_then(|n| n.checked_mul(width))
        .ok_or_else(|| PyValueError::new_err("Arrow length out of range"))?;
    // SAFETY: a valid string array of `offset + length` entries has `offset + length + 1`
    // offsets and a validity bitmap of at least that many bits.
    let (validity, offsets) = unsafe {
        (
            (!(*array.buffers).is_null()).then(|| arrow_buffer(array, 0, entries.div_ceil(8))),
            arrow_buffer(array, 1, offsets_len),
        )
    };
    let last = offsets
        .get(offsets_len.saturating_sub(width)..)
        .and_then(|raw| {
            if large {
                i64::from_le_bytes(raw.try_into().ok()?).try_into().ok()
            } else {
                i64::from(i32::from_le_bytes(raw.try_into().ok()?))
                    .try_into()
                    .ok()
            }
        })
        .unwrap_or(0usize);
    // SAFETY: the data buffer holds the bytes up to the last offset.
    let data = unsafe { arrow_buffer(array, 2, last) };
    Ok(ArrowStrings {
        validity,
        offsets,
        data,
        offset,
        length,
        large,
    })
}

/// Lints the records of an Arrow string array exported through the Arrow PyCapsule interface
/// (`array.__arrow_c_array__()`: a schema and an array capsule), reading them in place.
/// Null entries get no findings. Returns one list of findings per entry.
#[pyfunction]
#[pyo3(signature = (options, schema, array, name, threads=None))]
fn lint_arrow_capsules(
    py: Python<'_>,
    options: &Options,
    schema: Bound<'_, PyAny>,
    array: Bound<'_, PyAny>,
    name: &str,
    threads: Option<usize>,
) -> PyResult<Py<PyList>> {
    let ArrowStrings {
        validity,
        offsets,
        data,
        offset,
        length,
        large,
    } = arrow_strings(&schema, &array)?;
    let width = if large { 8 } else { 4 };
    let read_offset = |i: usize| -> Option<usize> {
        let at = i.checked_mul(width)?;
        let raw = offsets.get(at..at.checked_add(width)?)?;
        let v = if large {
            i64::from_le_bytes(raw.try_into().ok()?)
        } else {
            i64::from(i32::from_le_bytes(raw.try_into().ok()?))
        };
        usize::try_from(v).ok()
    };
    let mut spans: Vec<Option<(usize, usize)>> = Vec::with_capacity(length);
    for i in 0..length {
        let Some(j) = offset.checked_add(i) else {
            return Err(PyValueError::new_err("arrow offset out of range"));
        };
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
    let opts = &options.inner;
    let fixed = if bytes.len() <= INLINE_BYTES {
        py.allow_threads(|| embed::fix(name, bytes, opts, unsafe_fixes))
    } else {
        let pool = pool(None)?;
        py.allow_threads(|| pool.install(|| embed::fix(name, bytes, opts, unsafe_fixes)))
    }
    .map_err(|e| FixError::new_err(e.to_string()))?;
    let remaining = diagnostics_to_py(py, &fixed.remaining)?;
    Ok((
        fixed.text,
        fixed.changed,
        fixed.applied,
        fixed.unsafe_left,
        remaining,
    ))
}

/// One record's repair as `fix_many` returns it: `(text, applied, unsafe_left, fixed,
/// remaining, error)`, `text` being `None` when the record is unchanged.
type FixedRow = (
    Option<String>,
    usize,
    usize,
    Py<PyList>,
    Py<PyList>,
    Option<String>,
);

/// Repairs many records in parallel, each read as `lint_many` reads it. `None` records are
/// passed over (no findings). Returns one `FixedRow` per record, in order.
#[pyfunction]
#[pyo3(signature = (options, records, name, unsafe_fixes=false, threads=None))]
fn fix_many(
    py: Python<'_>,
    options: &Options,
    records: &Bound<'_, PyAny>,
    name: &str,
    unsafe_fixes: bool,
    threads: Option<usize>,
) -> PyResult<Vec<FixedRow>> {
    let pool = pool(threads)?;
    let opts = &options.inner;
    let mut out = Vec::new();
    in_batches(
        py,
        records,
        &pool,
        |item, i| {
            Ok(if item.is_none() {
                None
            } else {
                Some(record_bytes(item, Some(i))?)
            })
        },
        |bytes| bytes.map(|b| embed::fix_record(name, b, opts, unsafe_fixes)),
        |record| {
            out.push(match record {
                None => (
                    None,
                    0,
                    0,
                    PyList::empty(py).unbind(),
                    PyList::empty(py).unbind(),
                    None,
                ),
                Some(r) => (
                    r.text,
                    r.applied,
                    r.unsafe_left,
                    diagnostics_to_py(py, &r.fixed)?,
                    diagnostics_to_py(py, &r.remaining)?,
                    r.error,
                ),
            });
            Ok(())
        },
    )?;
    Ok(out)
}

/// Runs the command line with `argv` (program name first) and returns its exit code. Usage
/// errors, `--help` and `--version` print and return as the binary does.
#[cfg(feature = "cli")]
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<String>) -> u8 {
    use clap::Parser;
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
    m.add_function(wrap_pyfunction!(plain::plain_json, m)?)?;
    m.add_function(wrap_pyfunction!(lint_plain, m)?)?;
    m.add_function(wrap_pyfunction!(clean_plain, m)?)?;
    m.add_function(wrap_pyfunction!(lint_many, m)?)?;
    m.add_function(wrap_pyfunction!(lint_arrow_capsules, m)?)?;
    m.add_function(wrap_pyfunction!(lint_paths, m)?)?;
    m.add_function(wrap_pyfunction!(fix_text, m)?)?;
    m.add_function(wrap_pyfunction!(fix_many, m)?)?;
    #[cfg(feature = "cli")]
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add("FixError", m.py().get_type::<FixError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
