//! A seeded generator of hostile input: the same seed gives the same cases, so a failure
//! replays from the seed and case number the suite prints.

/// SplitMix64: small, fast, and the same on every machine.
pub struct Gen(u64);

/// Values a field may be given: out of range, of the wrong type, empty, huge, tiny, special
/// floats, control and format characters, deep nesting, durations of every size.
const VALUES: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "7",
    "100",
    "10000",
    "1000000",
    "10000001",
    "-0",
    "0.5",
    "1.0",
    "1e308",
    "-1e308",
    "1e-300",
    "5e-324",
    "nan",
    "inf",
    "-inf",
    "9223372036854775807",
    "-9223372036854775808",
    "true",
    "false",
    "\"\"",
    "\"x\"",
    "\"0s\"",
    "\"1ms\"",
    "\"10ms\"",
    "\"1s\"",
    "\"30s\"",
    "\"1000h\"",
    "\"-1s\"",
    "\"1e9s\"",
    "\"1.5\"",
    "\"open\"",
    "\"closed\"",
    "\"batch\"",
    "\"runs\"",
    "\"trace\"",
    "\"virtual\"",
    "\"platform\"",
    "\"full\"",
    "\"none\"",
    "\"abort\"",
    "\"caller-runs\"",
    "\"count\"",
    "\"time\"",
    "\"exponential\"",
    "\"\\u001b[31m\"",
    "\"a\\u202eb\"",
    "\"a\\u200bb\"",
    "\"\\u0000\"",
    "[]",
    "[1, 2]",
    "[\"timeout\"]",
    "[\"failure\", \"refused\"]",
    "[[\"user\"]]",
    "{}",
    "{ attempts = 100, backoff = \"0ms\" }",
    "{ to = 1000000.0, over = \"1s\" }",
    "{ dist = \"exponential\", mean = \"0ms\" }",
    "{ probability = 1.0, duration = \"1h\" }",
    "[{ at = \"1ms\", rate = 1000000.0 }]",
    "[{ at = \"1s\", clients = 1000000 }]",
    "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]",
];

/// Characters that make text hostile: controls, escapes, bidi overrides, zero-width ones,
/// quotes and brackets of the notations, combining marks, astral characters.
const CHARS: &[char] = &[
    'a',
    'z',
    'Z',
    '0',
    '9',
    ' ',
    '.',
    '=',
    ',',
    ';',
    ':',
    '"',
    '\'',
    '\\',
    '[',
    ']',
    '{',
    '}',
    '<',
    '>',
    '#',
    '-',
    '+',
    '*',
    '/',
    '\n',
    '\r',
    '\t',
    '\0',
    '\u{1b}',
    '\u{7f}',
    '\u{85}',
    '\u{200b}',
    '\u{200d}',
    '\u{202e}',
    '\u{2066}',
    '\u{feff}',
    '\u{0301}',
    'é',
    '漢',
    '😀',
    '\u{10ffff}',
];

impl Gen {
    pub fn new(seed: u64) -> Gen {
        Gen(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A hostile value for a field, or a number of any size.
    pub fn value(&mut self) -> String {
        match self.below(6) {
            0 => format!("{}", self.next() as i64 >> self.below(64)),
            1 => format!("{:e}", f64::from_bits(self.next())),
            2 => format!("\"{}ms\"", self.below(100_000)),
            _ => (*self.pick(VALUES)).to_owned(),
        }
    }

    /// Up to `max` hostile characters.
    pub fn text(&mut self, max: usize) -> String {
        let n = self.below(max + 1);
        (0..n).map(|_| *self.pick(CHARS)).collect()
    }

    /// Up to `max` bytes, any of them (invalid UTF-8 too).
    pub fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = self.below(max + 1);
        (0..n).map(|_| self.next() as u8).collect()
    }

    /// `text` with a few lines dropped, repeated, cut, or given a hostile value.
    pub fn mutate(&mut self, text: &str) -> String {
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        for _ in 0..1 + self.below(4) {
            if lines.is_empty() {
                break;
            }
            let i = self.below(lines.len());
            match self.below(6) {
                0 => {
                    lines.remove(i);
                }
                1 => {
                    let copy = lines[i].clone();
                    lines.insert(i, copy);
                }
                2 => {
                    let line = &lines[i];
                    let cut = line
                        .char_indices()
                        .nth(self.below(line.len() + 1))
                        .map_or(line.len(), |(at, _)| at);
                    lines[i].truncate(cut);
                }
                3 => {
                    let junk = self.text(12);
                    lines.insert(i, junk);
                }
                _ => {
                    if let Some((key, _)) = lines[i].split_once('=') {
                        lines[i] = format!("{key}= {}", self.value());
                    }
                }
            }
        }
        lines.join("\n")
    }
}
