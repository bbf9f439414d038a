//! `clift asm|dis|val`: SPIR-V assembler, disassembler and OpenCL validator.

use jit::spirv::{self, AsmOptions, DeviceFeatures, DisOptions};
use std::process::ExitCode;

const USAGE: &str = "usage:
  clift asm [-o out.spv] [--target-env spv1.X] [--preserve-numeric-ids] in.spvasm
  clift dis [--raw-id] [--no-header] [-o out.spvasm] in.spv
  clift val in.spv";

fn run(args: &[String]) -> Result<(), String> {
    let cmd = args.first().ok_or(USAGE)?;
    let mut input: Option<&str> = None;
    let mut output: Option<&str> = None;
    let mut asm_opts = AsmOptions::default();
    let mut dis_opts = DisOptions::default();
    let mut i = 1;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-o" => {
                i += 1;
                output = Some(args.get(i).ok_or("-o needs a file name")?);
            }
            "--target-env" => {
                i += 1;
                let env = args.get(i).ok_or("--target-env needs a value")?;
                asm_opts.version = AsmOptions::version_for_target_env(env)
                    .ok_or_else(|| format!("unknown target environment '{}'", env))?;
            }
            "--preserve-numeric-ids" => asm_opts.preserve_numeric_ids = true,
            "--raw-id" => dis_opts.raw_id = true,
            "--no-header" => dis_opts.no_header = true,
            _ if a.starts_with('-') && a != "-" => return Err(format!("unknown option '{}'\n{}", a, USAGE)),
            _ => input = Some(a),
        }
        i += 1;
    }
    let input = input.ok_or(USAGE)?;
    let data = if input == "-" {
        let mut v = vec![];
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut v).map_err(|e| e.to_string())?;
        v
    } else {
        std::fs::read(input).map_err(|e| format!("{}: {}", input, e))?
    };
    let write = |output: Option<&str>, bytes: &[u8]| -> Result<(), String> {
        match output {
            Some(o) if o != "-" => std::fs::write(o, bytes).map_err(|e| format!("{}: {}", o, e)),
            _ => std::io::Write::write_all(&mut std::io::stdout(), bytes).map_err(|e| e.to_string()),
        }
    };
    match cmd.as_str() {
        "asm" => {
            let text = String::from_utf8(data).map_err(|_| "input is not UTF-8 text".to_string())?;
            let words = spirv::assemble(&text, asm_opts).map_err(|e| format!("{}: {}", input, e))?;
            write(Some(output.unwrap_or("out.spv")), &spirv::words_to_bytes(&words))
        }
        "dis" => {
            let text = spirv::dis::disassemble_bytes(&data, dis_opts).map_err(|e| format!("{}: {}", input, e))?;
            write(output, text.as_bytes())
        }
        "val" => {
            let m = spirv::parse(&data).map_err(|e| format!("{}: {}", input, e))?;
            spirv::validate(&m, &DeviceFeatures::default()).map_err(|e| format!("{}: {}", input, e))?;
            println!("valid");
            Ok(())
        }
        _ => Err(USAGE.to_string()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", e);
            ExitCode::FAILURE
        }
    }
}
