//! `loopd personas`: the personas loopd knows, and import of OVOS personas.

use crate::persona::{self, ovos};
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// Arguments of `loopd personas`.
#[derive(Debug, Args)]
pub struct PersonasArgs {
    /// What to do with personas.
    #[command(subcommand)]
    pub command: PersonasCommand,
}

/// `loopd personas` subcommands.
#[derive(Debug, Subcommand)]
pub enum PersonasCommand {
    /// The built-in persona and the persona files found.
    List,
    /// A persona as TOML (default: the built-in one).
    Show {
        /// Name or TOML file.
        persona: Option<String>,
    },
    /// Converts an OVOS persona JSON file to a loopd persona (TOML on stdout).
    Import {
        /// The OVOS persona JSON file.
        file: PathBuf,
        /// Write the TOML here instead of stdout.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

/// Runs `loopd personas`.
pub fn run(args: PersonasArgs) -> Result<(), String> {
    match args.command {
        PersonasCommand::List => list(),
        PersonasCommand::Show { persona } => {
            let found = persona::find(persona.as_deref()).map_err(|e| e.to_string())?;
            print!("{}", found.to_toml().map_err(|e| e.to_string())?);
            Ok(())
        }
        PersonasCommand::Import { file, output } => import(&file, output.as_deref()),
    }
}

fn list() -> Result<(), String> {
    let (found, errors) = persona::discover();
    for f in found {
        let p = f.persona;
        println!(
            "{:<16} {:<18} {:<14} {}",
            p.name,
            p.engine,
            p.toolboxes.join(","),
            f.origin
        );
    }
    for e in errors {
        eprintln!("loopd: {e}");
    }
    Ok(())
}

fn import(file: &std::path::Path, output: Option<&std::path::Path>) -> Result<(), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let imported = ovos::import(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    for note in &imported.notes {
        eprintln!("note: {note}");
    }
    let toml = imported.persona.to_toml().map_err(|e| e.to_string())?;
    match output {
        Some(path) => {
            std::fs::write(path, toml).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None => {
            print!("{toml}");
            Ok(())
        }
    }
}
