//! zfp's bit stream: little-endian 64-bit words written and read a bit field at a time.

/// Writes bits least significant first into 64-bit words.
pub(super) struct BitWriter {
    pub(super) out: Vec<u8>,
    buffer: u64,
    pub(super) bits: u32,
}

impl BitWriter {
    pub(super) fn with_capacity(bytes: usize) -> BitWriter {
        BitWriter {
            out: Vec::with_capacity(bytes),
            buffer: 0,
            bits: 0,
        }
    }

    #[inline]
    pub(super) fn push_word(&mut self) {
        self.out.extend_from_slice(&self.buffer.to_le_bytes());
    }

    /// Append one bit (0 or 1) and return it.
    #[inline]
    pub(super) fn write_bit(&mut self, bit: u32) -> u32 {
        self.buffer |= u64::from(bit) << self.bits;
        self.bits += 1;
        if self.bits == 64 {
            self.push_word();
            self.buffer = 0;
            self.bits = 0;
        }
        bit
    }

    /// Append the `n <= 64` low bits of `value`; return the bits not written (`value >> n`).
    #[inline]
    pub(super) fn write_bits(&mut self, value: u64, n: u32) -> u64 {
        if n == 0 {
            return value;
        }
        let v = if n == 64 {
            value
        } else {
            value & ((1u64 << n) - 1)
        };
        self.buffer |= v << self.bits;
        let total = self.bits + n;
        if total >= 64 {
            self.push_word();
            self.buffer = if self.bits == 0 {
                0
            } else {
                v >> (64 - self.bits)
            };
            self.bits = total - 64;
        } else {
            self.bits = total;
        }
        if n == 64 {
            0
        } else {
            value >> n
        }
    }

    /// Append `n` zero bits.
    pub(super) fn pad(&mut self, n: u32) {
        let mut bits = u64::from(self.bits) + u64::from(n);
        while bits >= 64 {
            self.push_word();
            self.buffer = 0;
            bits -= 64;
        }
        self.bits = bits as u32;
    }

    /// Pad to the next word boundary and return the bytes.
    pub(super) fn finish(mut self) -> Vec<u8> {
        let n = (64 - self.bits) % 64;
        if n != 0 {
            self.pad(n);
        }
        self.out
    }
}

/// Reads bits least significant first from 64-bit little-endian words; past the end of the
/// input it reads zeros (and [`BitReader::overrun`] tells).
pub(super) struct BitReader<'a> {
    src: &'a [u8],
    /// Index of the next word to fetch.
    pos: usize,
    buffer: u64,
    bits: u32,
}

impl<'a> BitReader<'a> {
    pub(super) fn new(src: &'a [u8]) -> BitReader<'a> {
        BitReader {
            src,
            pos: 0,
            buffer: 0,
            bits: 0,
        }
    }

    #[inline]
    pub(super) fn read_word(&mut self) -> u64 {
        let start = self.pos * 8;
        self.pos += 1;
        match self.src.get(start..start + 8) {
            Some(w) => u64::from_le_bytes(w.try_into().unwrap()),
            None => {
                let mut w = [0u8; 8];
                if let Some(tail) = self.src.get(start..) {
                    w[..tail.len()].copy_from_slice(tail);
                }
                u64::from_le_bytes(w)
            }
        }
    }

    #[inline]
    pub(super) fn read_bit(&mut self) -> u32 {
        if self.bits == 0 {
            self.buffer = self.read_word();
            self.bits = 64;
        }
        self.bits -= 1;
        let bit = (self.buffer & 1) as u32;
        self.buffer >>= 1;
        bit
    }

    /// Read `n <= 64` bits.
    #[inline]
    pub(super) fn read_bits(&mut self, n: u32) -> u64 {
        if n == 0 {
            return 0;
        }
        let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        if self.bits >= n {
            let v = self.buffer & mask;
            self.buffer = if n == 64 { 0 } else { self.buffer >> n };
            self.bits -= n;
            v
        } else {
            let w = self.read_word();
            let v = self.buffer | (w << self.bits);
            let need = n - self.bits;
            self.buffer = if need == 64 { 0 } else { w >> need };
            self.bits = 64 - need;
            v & mask
        }
    }

    /// Bit offset of the next bit to read.
    pub(super) fn tell(&self) -> u64 {
        64 * self.pos as u64 - u64::from(self.bits)
    }

    pub(super) fn seek(&mut self, offset: u64) {
        self.pos = (offset / 64) as usize;
        let r = (offset % 64) as u32;
        if r != 0 {
            self.buffer = self.read_word() >> r;
            self.bits = 64 - r;
        } else {
            self.buffer = 0;
            self.bits = 0;
        }
    }

    pub(super) fn skip(&mut self, n: u32) {
        self.seek(self.tell() + u64::from(n));
    }

    /// Whether more bits were consumed than the input holds.
    pub(super) fn overrun(&self) -> bool {
        self.tell() > 8 * self.src.len() as u64
    }
}
