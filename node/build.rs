// napi-build sets the linker flags a Node addon needs (on macOS, symbols resolved at load time).
fn main() {
    napi_build::setup();
}
