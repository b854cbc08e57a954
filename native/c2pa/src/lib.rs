//! The C2PA read photoverify needs, as a native Node addon: c2pa-rs validating an asset held in
//! memory, with the same settings JSON and the same manifest-store JSON as c2pa-wasm's
//! `WasmReader.fromBytes(format, bytes, contextJson)` + `json()`, and errors with the same
//! `C2pa(<error kind>…)` text so the caller classifies them identically.

use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};

use c2pa::{Context, Reader};
use napi::bindgen_prelude::{AsyncTask, Uint8Array};
use napi::{Env, Error, Result, Task};
use napi_derive::napi;

pub struct ReadTask {
    format: String,
    bytes: Uint8Array,
    context_json: String,
}

/// c2pa-wasm's error text: `format!("{:?}", WasmError::C2pa(error))`.
fn c2pa_error(error: c2pa::Error) -> Error {
    Error::from_reason(format!("C2pa({error:?})"))
}

fn read(format: &str, bytes: &[u8], context_json: &str) -> Result<String> {
    let context = Context::new().with_settings(context_json).map_err(c2pa_error)?;
    // The async path, as c2pa-wasm takes: it is the one that also validates CAWG identity
    // assertions. Nothing in it waits on I/O (no HTTP client is compiled in), so a plain
    // block_on on the worker thread drives it to the end.
    let reader = futures_executor::block_on(Reader::from_context(context).with_stream_async(format, Cursor::new(bytes)))
        .map_err(c2pa_error)?;
    Ok(reader.json())
}

impl Task for ReadTask {
    type Output = String;
    type JsValue = String;

    /// Runs on a libuv worker thread, off the event loop. A panic inside c2pa-rs on hostile
    /// input becomes a rejected promise (c2pa-wasm traps with `unreachable`), not a crash.
    fn compute(&mut self) -> Result<String> {
        match catch_unwind(AssertUnwindSafe(|| read(&self.format, &self.bytes, &self.context_json))) {
            Ok(result) => result,
            Err(panic) => {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(Error::from_reason(format!("c2pa-rs panicked: {why}")))
            }
        }
    }

    fn resolve(&mut self, _env: Env, output: String) -> Result<String> {
        Ok(output)
    }
}

/// Reads and validates the manifest store of `bytes` (`format`: a MIME type) with the settings
/// in `contextJson`; resolves to the manifest store as JSON.
#[napi(js_name = "readJson")]
pub fn read_json(format: String, bytes: Uint8Array, context_json: String) -> AsyncTask<ReadTask> {
    AsyncTask::new(ReadTask { format, bytes, context_json })
}

/// The c2pa-rs version compiled in, for the startup summary.
#[napi(js_name = "c2paVersion")]
pub fn c2pa_version() -> &'static str {
    c2pa::VERSION
}
