//! Clift's program binary (CL_PROGRAM_BINARIES / clCreateProgramWithBinary): a small header
//! naming the format, the binary type and the device, then the SPIR-V modules the program is
//! made of. A linked program keeps its inputs and is linked again when rebuilt, so the format
//! never has to encode Clift's internal module form.

use opencl_sys::cl_program_binary_type;

const MAGIC: &[u8; 8] = b"CLIFTBIN";
const FORMAT_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramBinary {
    pub binary_type: cl_program_binary_type,
    pub device: String,
    /// SPIR-V binaries, each as little-endian words.
    pub modules: Vec<Vec<u8>>,
}

impl ProgramBinary {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&self.binary_type.to_le_bytes());
        out.extend_from_slice(&(self.device.len() as u32).to_le_bytes());
        out.extend_from_slice(self.device.as_bytes());
        out.extend_from_slice(&(self.modules.len() as u32).to_le_bytes());
        for m in &self.modules {
            out.extend_from_slice(&(m.len() as u64).to_le_bytes());
            out.extend_from_slice(m);
        }
        out
    }

    /// Reads a binary; the error says what is wrong with it (for the build log).
    pub fn decode(bytes: &[u8]) -> Result<ProgramBinary, String> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8)? != MAGIC {
            return Err("not a Clift program binary (bad magic)".into());
        }
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(format!(
                "Clift binary format {version} is not the supported format {FORMAT_VERSION}"
            ));
        }
        let binary_type = r.u32()?;
        let name_len = r.u32()? as usize;
        let device = String::from_utf8_lossy(r.take(name_len)?).into_owned();
        let count = r.u32()? as usize;
        let mut modules = Vec::new();
        for _ in 0..count {
            let len = usize::try_from(r.u64()?).map_err(|_| "module too large")?;
            modules.push(r.take(len)?.to_vec());
        }
        if r.at != bytes.len() {
            return Err("trailing bytes after the last module".into());
        }
        Ok(ProgramBinary {
            binary_type,
            device,
            modules,
        })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or("truncated Clift binary")?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(self.u32()? as u64 | (self.u32()? as u64) << 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let b = ProgramBinary {
            binary_type: 4,
            device: "cpu".into(),
            modules: vec![vec![1, 2, 3, 4], vec![]],
        };
        let bytes = b.encode();
        assert_eq!(ProgramBinary::decode(&bytes), Ok(b));
        assert!(ProgramBinary::decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(ProgramBinary::decode(b"garbage!").is_err());
    }
}
