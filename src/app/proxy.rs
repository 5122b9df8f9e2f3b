//! `toolcheck proxy`: its settings from the command line and `--config`, then the gateway
//! (`toolcheck-proxy`), which runs until Ctrl-C or SIGTERM.

use crate::cli::ProxyArgs;
use crate::escape;

use super::{EXIT_CLEAN, EXIT_ERROR};

pub(super) fn proxy_command(args: &ProxyArgs) -> u8 {
    #[cfg(feature = "proxy")]
    {
        let config = match settings(args) {
            Ok(config) => config,
            Err(e) => {
                eprintln!("error: {}", escape::value(&e.to_string()));
                return EXIT_ERROR;
            }
        };
        match toolcheck_proxy::run(config) {
            Ok(()) => EXIT_CLEAN,
            Err(e) => {
                eprintln!("error: {}", escape::value(&e.to_string()));
                EXIT_ERROR
            }
        }
    }
    #[cfg(not(feature = "proxy"))]
    {
        let _ = (args, EXIT_CLEAN);
        eprintln!(
            "error: {}",
            escape::value(
                "this build of toolcheck has no proxy (built without its `proxy` feature)"
            )
        );
        EXIT_ERROR
    }
}

/// The gateway's settings: `--config`'s file, with the options given on top.
#[cfg(feature = "proxy")]
fn settings(args: &ProxyArgs) -> Result<toolcheck_proxy::Config, toolcheck_proxy::Error> {
    use toolcheck_proxy::setup::{prefix, File, DEFAULT_MAX_BODY};
    use toolcheck_proxy::{Config, Error, Mode, Route, Upstream};

    let file = args.config.as_deref().map(File::read).transpose()?;
    let (file_listen, file_mode, file_record, file_max, file_targets, file_routes) = match file {
        Some(f) => (
            f.listen,
            f.mode,
            f.record,
            f.max_body_size,
            f.target,
            f.upstream,
        ),
        None => Default::default(),
    };
    let mut routes = Vec::new();
    if let Some(url) = &args.upstream {
        routes.push(Route {
            prefix: "/".to_string(),
            upstream: Upstream::parse(url)?,
        });
    }
    for route in file_routes {
        routes.push(Route {
            prefix: prefix(&route.prefix)?,
            upstream: Upstream::parse(&route.url)?,
        });
    }
    if routes.is_empty() {
        return Err(Error::Config(
            "no upstream: give --upstream URL, or [[upstream]] entries in --config's file".into(),
        ));
    }
    // The command line's default address applies only when neither names one.
    let listen = match file_listen {
        Some(listen) if args.listen == "127.0.0.1:8787" => listen,
        _ => args.listen.clone(),
    };
    let listen = listen.parse().map_err(|e| {
        Error::Config(format!(
            "--listen {listen}: {e} (an address such as 127.0.0.1:8787)"
        ))
    })?;
    let mode = match (args.mode, file_mode) {
        (Some(mode), _) => match mode {
            crate::cli::ProxyMode::Report => Mode::Report,
            crate::cli::ProxyMode::Repair => Mode::Repair,
            crate::cli::ProxyMode::Block => Mode::Block,
        },
        (None, Some(name)) => Mode::from_name(&name).ok_or_else(|| {
            Error::Config(format!("mode `{name}`: expected report, repair or block"))
        })?,
        (None, None) => Mode::Report,
    };
    let targets = if args.target.is_empty() {
        file_targets
    } else {
        args.target.iter().map(|p| p.name().to_string()).collect()
    };
    Ok(Config {
        listen,
        routes,
        mode,
        record: args.record.clone().or(file_record),
        max_body: args.max_body_size.or(file_max).unwrap_or(DEFAULT_MAX_BODY),
        targets,
    })
}
