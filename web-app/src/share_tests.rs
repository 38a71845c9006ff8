//! Share links: round trips of random valid experiments, random and damaged fragments (never a
//! panic, always a state or an error), the size of a bundled example's link, and each refusal.

use super::*;
use sim_core::exec::LaunchSetup;

/// xorshift64* (as `tests/src/rng.rs`), seeded: a failing case is reproduced by its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn maybe<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> Option<T> {
        (self.below(2) == 0).then(|| f(self))
    }
}

const EXAMPLES: &[&str] = &["matmul_tiled", "vector_add"];

/// Random text: ASCII, PTX punctuation, line breaks, and characters outside ASCII.
fn text(rng: &mut Rng, max: usize) -> String {
    const PIECES: &[&str] = &["a", "%r1", " ", "\n", "\t", ";", "{", "}", "\"", "#", "é", "→", "𝔾", "\\", "=", "&"];
    (0..rng.below(max)).map(|_| PIECES[rng.below(PIECES.len())]).collect()
}

fn launch(rng: &mut Rng) -> Option<LaunchSetup> {
    let json = format!(
        r#"{{"kernel":"k{}","grid":[{},1,1],"block":[{},2,1],"dynamic_smem":{},"params":[{{"scalar":{{"type":"s32","value":{}}}}}]}}"#,
        rng.below(5),
        rng.below(1000) + 1,
        rng.below(512) + 1,
        rng.below(4096),
        rng.next() as i32
    );
    LaunchSetup::from_json(&json).ok()
}

fn experiment(rng: &mut Rng) -> Experiment {
    let presets: Vec<&str> = sim_core::gpu::presets::names().collect();
    let schemes: Vec<&str> = sim_core::timing::regfile::registry::names().collect();
    let mut e = Experiment::new(presets[rng.below(presets.len())]);
    e.example = rng.maybe(|r| EXAMPLES[r.below(EXAMPLES.len())].to_owned());
    e.source = if e.example.is_none() || rng.below(2) == 0 { Some(text(rng, 400)) } else { None };
    e.kernel = rng.maybe(|r| format!("_Z{}k", r.below(99)));
    e.launch = rng.maybe(launch).flatten();
    e.gpu.sm_count = rng.maybe(|r| r.below(200) as u32);
    e.gpu.registers = rng.maybe(|r| r.next() as u32);
    e.gpu.warps = rng.maybe(|r| r.below(64) as u32);
    e.ptxas_registers = rng.maybe(|r| r.below(256) as u32);
    e.sgprs = rng.maybe(|r| r.below(104) as u32);
    for _ in 0..rng.below(5) {
        let name = schemes[rng.below(schemes.len())];
        let spec = match rng.below(3) {
            0 => name.to_owned(),
            1 => format!("{name}:collector_units={}", rng.below(9)),
            _ => format!("{name}:a_{}=true,b=reg", rng.below(9)),
        };
        e.schemes.push(spec);
    }
    e.panels = (0..rng.below(3)).map(|i| ["editor", "run", "occupancy"][i].to_owned()).collect();
    e
}

#[test]
fn random_valid_experiments_survive_the_link_unchanged() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for case in 0..2000 {
        let e = experiment(&mut rng);
        let link = encode(&e);
        assert!(link.starts_with("v1."), "case {case}");
        assert!(link.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)), "URL-safe: {link}");
        assert_eq!(read_fragment(&format!("#{link}"), EXAMPLES), Fragment::State(Ok(Box::new(e))), "case {case}");
    }
}

#[test]
fn random_and_damaged_fragments_give_an_error_never_a_panic() {
    let mut rng = Rng(0xdead_beef_0000_0042);
    let good = encode(&experiment(&mut rng));
    let alphabet: Vec<char> = "v1.0123456789abcXYZ-_=#%é".chars().collect();
    for _ in 0..3000 {
        // Random characters, a truncated link, a link with one character changed, random bytes.
        let random: String = (0..rng.below(80)).map(|_| alphabet[rng.below(alphabet.len())]).collect();
        let cut = good.get(..rng.below(good.len())).unwrap_or_default().to_owned();
        let mut changed: Vec<u8> = good.bytes().collect();
        let at = 3 + rng.below(changed.len() - 3);
        changed[at] = b"AQgw-_"[rng.below(6)];
        let changed = String::from_utf8(changed).unwrap_or_default();
        let bytes: Vec<u8> = (0..rng.below(200)).map(|_| rng.next() as u8).collect();
        let packed = format!("v1.{}", URL_SAFE_NO_PAD.encode(&bytes));
        for fragment in [random, cut, changed, packed] {
            // Whatever it gives, it gives it as a value (a panic fails the test).
            let _ = read_fragment(&fragment, EXAMPLES);
        }
    }
    // Truncation is caught (by the deflate stream's end or its Adler-32 check).
    let cut = &good[..good.len() - 4];
    assert!(matches!(decode(cut, EXAMPLES), Err(ShareError::Corrupt(_))), "{:?}", decode(cut, EXAMPLES));
}

#[test]
fn the_tiled_matmul_link_with_two_schemes_is_short() {
    let mut e = Experiment::new("fermi-gtx480");
    e.example = Some("matmul_tiled".into());
    e.kernel = Some("_Z11matmulTiledPKfS0_Pfi".into());
    e.schemes = vec!["baseline".into(), "baseline:collector_units=2".into()];
    let link = format!("https://teaching.example.edu/courses/gpu-arch/reglab/#{}", encode(&e));
    // The JSON is 157 bytes; zlib saves little on so short a text and base64 adds a third: the
    // fragment is 185 characters (measured), the whole link 240.
    assert!(link.len() < 300, "{} characters: {link}", link.len());
}

#[test]
fn each_refusal_says_what_is_wrong() {
    let msg = |f: &str| match read_fragment(f, EXAMPLES) {
        Fragment::State(Err(e)) => e.to_string(),
        other => format!("{other:?}"),
    };
    assert_eq!(read_fragment("", EXAMPLES), Fragment::Empty);
    assert_eq!(read_fragment("#", EXAMPLES), Fragment::Empty);
    assert_eq!(read_fragment("#gpu-preset", EXAMPLES), Fragment::Anchor, "an in-page anchor is left alone");
    assert!(msg("#x=1&y=2").contains("not a RegLab state"));
    assert!(msg("#v1.@@@").contains("damaged or cut short (not base64url)"));
    assert!(msg("#v1.AAAA").contains("damaged or cut short"));
    assert!(msg("#v7.AAAA").contains("newer RegLab (format 7"));
    let long = format!("v1.{}", "A".repeat(MAX_FRAGMENT_CHARS));
    assert!(msg(&long).contains("over the limit of 1048576"));
    // A zlib bomb: 17 MiB of spaces packs into a few KB but is refused once 16 MiB are unpacked.
    let bomb = miniz_oxide::deflate::compress_to_vec_zlib(&vec![b' '; 17 << 20], 10);
    assert!(bomb.len() < 40_000);
    assert!(msg(&format!("v1.{}", URL_SAFE_NO_PAD.encode(&bomb))).contains("unpacks to more than 16777216"));
    // Valid packing of something that is not an experiment.
    let foreign = miniz_oxide::deflate::compress_to_vec_zlib(br#"{"name":"x"}"#, 10);
    assert!(msg(&format!("v1.{}", URL_SAFE_NO_PAD.encode(&foreign))).contains("not a RegLab experiment"));
}
