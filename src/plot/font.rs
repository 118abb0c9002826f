//! The chart's font carried inside its SVG: DejaVu Sans cut down to the glyphs the chart's
//! text draws, as an `@font-face` whose source is a base64 data URL. A viewer without DejaVu
//! Sans then measures the labels as the chart was laid out, so they keep their places.
//!
//! `subsetter` (typst's) keeps the glyphs (and the components of composite ones), their
//! metrics and hinting, renumbered from 0; it leaves out `cmap` and `OS/2`, which a PDF does
//! without but a browser needs, so they are added here: a `cmap` for exactly the characters
//! kept, and the original `OS/2`.

use std::collections::BTreeSet;

use base64::Engine as _;
use subsetter::GlyphRemapper;
use ttf_parser::{Face, Tag};

/// The family name of the embedded face. It is not DejaVu Sans's own, so a viewer that does
/// not read `@font-face` goes on to the installed DejaVu Sans and the rest of the stack.
pub const EMBEDDED_FAMILY: &str = "DejaVu Sans Embedded";

/// Why the font could not be carried: the embedded font file is threadlab's own, so each of
/// these is an internal error.
#[derive(Debug, thiserror::Error)]
pub enum FontError {
    #[error("the drawn SVG does not parse: {0}")]
    Svg(#[from] roxmltree::Error),
    #[error("the embedded font could not be read: {0}")]
    Parse(#[from] ttf_parser::FaceParsingError),
    #[error("the embedded font could not be subset: {0}")]
    Subset(#[from] subsetter::Error),
    #[error("the embedded font's subset is malformed")]
    Malformed,
}

/// `svg` with an `@font-face` of `font` (subset to the characters of its `<text>` elements)
/// inserted as the first child of its root, in a `<defs><style>`.
pub fn embed(svg: &str, font: &[u8]) -> Result<String, FontError> {
    let chars = text_chars(svg)?;
    let data = subset(font, &chars)?;
    let url = base64::engine::general_purpose::STANDARD.encode(data);
    let style = format!(
        "<defs><style>@font-face{{font-family:'{EMBEDDED_FAMILY}';\
         src:url(data:font/ttf;base64,{url}) format('truetype')}}</style></defs>\n"
    );
    // The root's start tag ends at the first `>`: plotters writes only numbers and the
    // namespace in it.
    let root = svg.find("<svg").ok_or(FontError::Malformed)?;
    let open = svg[root..].find('>').ok_or(FontError::Malformed)? + root + 1;
    let newline = usize::from(svg[open..].starts_with('\n'));
    let (head, tail) = svg.split_at(open + newline);
    let mut out = String::with_capacity(svg.len() + style.len());
    out.push_str(head);
    if newline == 0 {
        out.push('\n');
    }
    out.push_str(&style);
    out.push_str(tail);
    Ok(out)
}

/// Every character the `<text>` elements of `svg` hold (markup unescaped), but line breaks
/// and other control characters, which no glyph draws.
pub fn text_chars(svg: &str) -> Result<BTreeSet<char>, roxmltree::Error> {
    let doc = roxmltree::Document::parse(svg)?;
    Ok(doc
        .descendants()
        .filter(|n| n.is_text())
        .filter(|n| n.ancestors().any(|a| a.has_tag_name("text")))
        .filter_map(|n| n.text())
        .flat_map(str::chars)
        .filter(|c| !c.is_control())
        .collect())
}

/// `font` cut down to the glyphs of `chars` (those it has), with a `cmap` for them.
pub fn subset(font: &[u8], chars: &BTreeSet<char>) -> Result<Vec<u8>, FontError> {
    let face = Face::parse(font, 0)?;
    let mut remapper = GlyphRemapper::new();
    let mapped: Vec<(u32, u16)> = chars
        .iter()
        .filter_map(|&c| {
            let glyph = face.glyph_index(c)?;
            Some((u32::from(c), remapper.remap(glyph.0)))
        })
        .collect();
    let cut = subsetter::subset(font, 0, &remapper)?;
    let os2 = face
        .raw_face()
        .table(Tag::from_bytes(b"OS/2"))
        .ok_or(FontError::Malformed)?;
    let mut tables = tables(&cut).ok_or(FontError::Malformed)?;
    tables.push((*b"cmap", cmap(&mapped)));
    tables.push((*b"OS/2", os2.to_vec()));
    Ok(assemble(tables))
}

/// The tables of an sfnt font: its tag and its bytes.
fn tables(font: &[u8]) -> Option<Vec<([u8; 4], Vec<u8>)>> {
    let count = usize::from(u16::from_be_bytes(font.get(4..6)?.try_into().ok()?));
    (0..count)
        .map(|i| {
            let record = font.get(12 + 16 * i..28 + 16 * i)?;
            let tag: [u8; 4] = record[0..4].try_into().ok()?;
            let offset = u32::from_be_bytes(record[8..12].try_into().ok()?) as usize;
            let length = u32::from_be_bytes(record[12..16].try_into().ok()?) as usize;
            Some((tag, font.get(offset..offset.checked_add(length)?)?.to_vec()))
        })
        .collect()
}

/// A TrueType font of `tables`: the directory sorted by tag, each table 4-byte aligned with
/// its checksum, and `head`'s checksum adjustment over the whole (OpenType's "otff").
fn assemble(mut tables: Vec<([u8; 4], Vec<u8>)>) -> Vec<u8> {
    tables.sort_by_key(|(tag, _)| *tag);
    let count = u16::try_from(tables.len()).unwrap_or(u16::MAX);
    let (search_range, entry_selector) = binary_search_fields(count, 16);
    let mut out = Vec::new();
    out.extend_from_slice(&0x0001_0000_u32.to_be_bytes());
    out.extend_from_slice(&count.to_be_bytes());
    out.extend_from_slice(&search_range.to_be_bytes());
    out.extend_from_slice(&entry_selector.to_be_bytes());
    out.extend_from_slice(&(count * 16 - search_range).to_be_bytes());
    let mut offset = 12 + 16 * tables.len();
    let mut head_at = None;
    for (tag, data) in &mut tables {
        if tag == b"head" && data.len() >= 12 {
            data[8..12].fill(0);
            head_at = Some(offset + 8);
        }
        out.extend_from_slice(tag);
        out.extend_from_slice(&checksum(data).to_be_bytes());
        out.extend_from_slice(&(offset as u32).to_be_bytes());
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        offset += data.len().next_multiple_of(4);
    }
    for (_, data) in &tables {
        out.extend_from_slice(data);
        out.resize(out.len().next_multiple_of(4), 0);
    }
    if let Some(at) = head_at {
        let adjustment = 0xB1B0_AFBA_u32.wrapping_sub(checksum(&out));
        out[at..at + 4].copy_from_slice(&adjustment.to_be_bytes());
    }
    out
}

/// The sum of `data` as big-endian 32-bit words, the last one padded with zeros.
fn checksum(data: &[u8]) -> u32 {
    data.chunks(4).fold(0u32, |sum, word| {
        let mut bytes = [0u8; 4];
        bytes[..word.len()].copy_from_slice(word);
        sum.wrapping_add(u32::from_be_bytes(bytes))
    })
}

/// A binary search header's `searchRange` (`unit` times the largest power of two not above
/// `count`) and `entrySelector` (that power's log2).
fn binary_search_fields(count: u16, unit: u16) -> (u16, u16) {
    let log = if count == 0 { 0 } else { count.ilog2() as u16 };
    (unit * (1 << log), log)
}

/// A `cmap` for `mapped` (character, glyph), sorted by character: a format 4 subtable of the
/// Basic Multilingual Plane (Windows, Unicode BMP) and, when a character lies beyond it, a
/// format 12 subtable of them all (Windows, Unicode full), which readers then prefer.
fn cmap(mapped: &[(u32, u16)]) -> Vec<u8> {
    let bmp: Vec<(u16, u16)> = mapped
        .iter()
        .filter_map(|&(c, g)| Some((u16::try_from(c).ok()?, g)))
        .filter(|&(c, _)| c != 0xFFFF)
        .collect();
    let mut subtables = vec![(1u16, format4(&bmp))];
    if mapped.iter().any(|&(c, _)| c > 0xFFFF) {
        subtables.push((10, format12(mapped)));
    }
    let mut out = Vec::new();
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&(subtables.len() as u16).to_be_bytes());
    let mut offset = 4 + 8 * subtables.len();
    for (encoding, table) in &subtables {
        out.extend_from_slice(&3u16.to_be_bytes());
        out.extend_from_slice(&encoding.to_be_bytes());
        out.extend_from_slice(&(offset as u32).to_be_bytes());
        offset += table.len();
    }
    for (_, table) in subtables {
        out.extend_from_slice(&table);
    }
    out
}

/// Runs of consecutive characters on consecutive glyphs, as (first char, last char, first
/// glyph).
fn runs<C: Copy + Into<u32>>(mapped: &[(C, u16)]) -> Vec<(u32, u32, u16)> {
    let mut runs: Vec<(u32, u32, u16)> = Vec::new();
    for &(c, g) in mapped {
        let c = c.into();
        match runs.last_mut() {
            Some((first, last, glyph))
                if c == *last + 1 && u32::from(g) == u32::from(*glyph) + (c - *first) =>
            {
                *last = c;
            }
            _ => runs.push((c, c, g)),
        }
    }
    runs
}

/// cmap format 4: one segment per run (its glyphs by `idDelta`), then the closing 0xFFFF.
fn format4(mapped: &[(u16, u16)]) -> Vec<u8> {
    let mut segments: Vec<(u16, u16, u16)> = runs(mapped)
        .into_iter()
        .map(|(first, last, glyph)| {
            // Both fit: the characters came in as u16 below 0xFFFF.
            let (first, last) = (first as u16, last as u16);
            (first, last, glyph.wrapping_sub(first))
        })
        .collect();
    segments.push((0xFFFF, 0xFFFF, 1));
    let count = segments.len() as u16;
    let (range, selector) = binary_search_fields(count, 2);
    let length = 16 + 8 * segments.len();
    let mut out = Vec::with_capacity(length);
    for field in [
        4,
        length as u16,
        0,
        count * 2,
        range,
        selector,
        count * 2 - range,
    ] {
        out.extend_from_slice(&field.to_be_bytes());
    }
    segments
        .iter()
        .for_each(|s| out.extend_from_slice(&s.1.to_be_bytes()));
    out.extend_from_slice(&0u16.to_be_bytes());
    segments
        .iter()
        .for_each(|s| out.extend_from_slice(&s.0.to_be_bytes()));
    segments
        .iter()
        .for_each(|s| out.extend_from_slice(&s.2.to_be_bytes()));
    segments
        .iter()
        .for_each(|_| out.extend_from_slice(&0u16.to_be_bytes()));
    out
}

/// cmap format 12: one sequential group per run.
fn format12(mapped: &[(u32, u16)]) -> Vec<u8> {
    let groups = runs(mapped);
    let length = 16 + 12 * groups.len();
    let mut out = Vec::with_capacity(length);
    out.extend_from_slice(&12u16.to_be_bytes());
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&(length as u32).to_be_bytes());
    out.extend_from_slice(&0u32.to_be_bytes());
    out.extend_from_slice(&(groups.len() as u32).to_be_bytes());
    for (first, last, glyph) in groups {
        out.extend_from_slice(&first.to_be_bytes());
        out.extend_from_slice(&last.to_be_bytes());
        out.extend_from_slice(&u32::from(glyph).to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    static DEJAVU: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

    fn chars(text: &str) -> BTreeSet<char> {
        text.chars().collect()
    }

    #[test]
    fn the_subset_maps_each_character_to_the_same_glyph_as_the_full_font() {
        // ASCII, Latin-1, a composite glyph (é), an arrow, and one beyond the BMP that
        // DejaVu Sans draws (double-struck A).
        let wanted = chars("Goodput (req/s) p99 ≤ 1.7 s: é → ⌀ \u{1D538}");
        let full = Face::parse(DEJAVU, 0).expect("DejaVu Sans");
        let data = subset(DEJAVU, &wanted).expect("subset");
        let cut = Face::parse(&data, 0).expect("the subset parses");
        assert!(cut.number_of_glyphs() < 40, "{}", cut.number_of_glyphs());
        for c in wanted {
            let (Some(old), Some(new)) = (full.glyph_index(c), cut.glyph_index(c)) else {
                panic!("{c:?} is not in the subset");
            };
            assert_eq!(
                full.glyph_hor_advance(old),
                cut.glyph_hor_advance(new),
                "{c:?}"
            );
            assert_eq!(
                full.glyph_bounding_box(old),
                cut.glyph_bounding_box(new),
                "{c:?}"
            );
        }
        assert_eq!(cut.glyph_index('x'), None, "only what was asked is kept");
        assert_eq!(full.units_per_em(), cut.units_per_em());
        assert_eq!(full.ascender(), cut.ascender());
        assert_eq!(full.descender(), cut.descender());
    }

    #[test]
    fn the_subset_font_s_checksums_hold() {
        let data = subset(DEJAVU, &chars("threadlab")).expect("subset");
        // OpenType: the whole font sums to 0xB1B0AFBA once head's adjustment is in.
        assert_eq!(checksum(&data), 0xB1B0_AFBA);
        for (tag, table) in tables(&data).expect("a table directory") {
            let record = (0..usize::from(u16::from_be_bytes([data[4], data[5]])))
                .map(|i| &data[12 + 16 * i..28 + 16 * i])
                .find(|r| r[0..4] == tag)
                .expect("the table's record");
            let mut table = table;
            if &tag == b"head" {
                table[8..12].fill(0);
            }
            assert_eq!(record[4..8], checksum(&table).to_be_bytes(), "{tag:?}");
        }
    }

    #[test]
    fn a_character_the_font_lacks_is_left_to_the_fallback_fonts() {
        let data = subset(DEJAVU, &chars("a\u{4E00}")).expect("subset");
        let cut = Face::parse(&data, 0).expect("the subset parses");
        assert!(cut.glyph_index('a').is_some());
        assert_eq!(cut.glyph_index('\u{4E00}'), None);
    }

    #[test]
    fn cmap_runs_join_consecutive_characters_on_consecutive_glyphs() {
        let mapped = [(0x41u16, 5u16), (0x42, 6), (0x43, 7), (0x45, 8), (0x46, 3)];
        assert_eq!(
            runs(&mapped),
            vec![(0x41, 0x43, 5), (0x45, 0x45, 8), (0x46, 0x46, 3)]
        );
    }

    #[test]
    fn the_style_goes_first_under_the_root_and_the_text_is_unchanged() {
        let svg = "<svg width=\"10\" height=\"10\" xmlns=\"http://www.w3.org/2000/svg\">\n\
                   <text x=\"1\" y=\"1\">\nA &amp; B &lt;1&gt;\n</text>\n</svg>\n";
        assert_eq!(
            text_chars(svg).expect("parses"),
            chars("A &B<1>"),
            "unescaped, without the line breaks"
        );
        let out = embed(svg, DEJAVU).expect("embedded");
        let doc = roxmltree::Document::parse(&out).expect("still well-formed");
        let first = doc.root_element().first_element_child().expect("a child");
        assert!(first.has_tag_name("defs"));
        assert!(out.ends_with("<text x=\"1\" y=\"1\">\nA &amp; B &lt;1&gt;\n</text>\n</svg>\n"));
        assert_eq!(embed(svg, DEJAVU).expect("again"), out, "deterministic");
    }
}
