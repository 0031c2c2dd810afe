//! Which shard an object belongs to: the API server's hash of its uid and the ranges of that
//! hash a shard holds, written once here.
//!
//! kube-apiserver's sharded list and watch (`ListOptions.shardSelector`, feature gate
//! `ShardedListAndWatch`) selects objects by the 64-bit FNV-1a hash of a field,
//! `object.metadata.uid` here, falling in `[start, end)`, where the space ends at 2^64: a
//! bound that does not fit in a `u64`, so bounds are kept as `u128`. The server's parser
//! takes exactly 16 lowercase hex digits after `0x` (17 for 2^64 itself, `0x10000000000000000`)
//! and refuses shorter forms.
//!
//! Shard `i` of `n` holds `[ceil(i * 2^64 / n), ceil((i + 1) * 2^64 / n))`. Rounding the
//! bounds up makes the shard of a hash `h` exactly `floor(h * n / 2^64)`: a hash is in
//! `[ceil(a), ceil(b))` exactly when it is in `[a, b)`, since it is a whole number. The
//! shards of one count tile the space, none empty while `n` is at most 2^64.

use std::fmt;

/// The size of the hash space: 2^64, the exclusive end of the last shard.
const SPACE: u128 = 1 << 64;

/// The hash the API server selects shards by: 64-bit FNV-1a of the field's bytes
/// (`k8s.io/apimachinery/pkg/sharding.HashField`, Go's `hash/fnv.New64a`).
pub fn uid_hash(uid: &str) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    uid.bytes().fold(OFFSET_BASIS, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// One shard of a kind's objects: the `index`-th of `count` equal ranges of the hash of their
/// uid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    index: u32,
    count: u32,
}

impl Shard {
    /// The `index`-th of `count` shards; `None` unless `index < count`.
    pub fn new(index: u32, count: u32) -> Option<Shard> {
        (index < count).then_some(Shard { index, count })
    }

    /// Every shard of `count` (none when it is 0), in order.
    pub fn all(count: u32) -> impl Iterator<Item = Shard> {
        (0..count).map(move |index| Shard { index, count })
    }

    /// The shard of `count` that holds the object whose uid is `uid`; `None` when `count`
    /// is 0.
    pub fn of_uid(uid: &str, count: u32) -> Option<Shard> {
        Self::of_hash(uid_hash(uid), count)
    }

    /// The shard of `count` whose range holds `hash`: `floor(hash * count / 2^64)`.
    pub fn of_hash(hash: u64, count: u32) -> Option<Shard> {
        if count == 0 {
            return None;
        }
        let index = (u128::from(hash) * u128::from(count)) >> 64;
        // Below `count`, since `hash < 2^64`.
        let index = u32::try_from(index).ok()?;
        Some(Shard { index, count })
    }

    /// Its position among the shards, from 0.
    pub fn index(self) -> u32 {
        self.index
    }

    /// How many shards the kind is cut into.
    pub fn count(self) -> u32 {
        self.count
    }

    /// The range of the hash this shard holds.
    pub fn range(self) -> HashRange {
        let bound = |i: u32| (u128::from(i) * SPACE).div_ceil(u128::from(self.count));
        HashRange {
            start: bound(self.index),
            end: bound(self.index + 1),
        }
    }

    /// Whether this shard holds the object whose uid is `uid`.
    pub fn holds(self, uid: &str) -> bool {
        self.range().contains(uid_hash(uid))
    }

    /// The API server's shard selector for this shard's objects:
    /// `shardRange(object.metadata.uid, '0x…', '0x…')`.
    pub fn selector(self) -> String {
        self.range().selector("object.metadata.uid")
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "shard {} of {}", self.index, self.count)
    }
}

/// A range `[start, end)` of the 64-bit hash space; `end` may be 2^64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashRange {
    start: u128,
    end: u128,
}

impl HashRange {
    /// `[start, end)`; `None` unless `start < end <= 2^64`.
    pub fn new(start: u128, end: u128) -> Option<HashRange> {
        (start < end && end <= SPACE).then_some(HashRange { start, end })
    }

    /// The first hash in the range.
    pub fn start(self) -> u128 {
        self.start
    }

    /// The first hash past the range (2^64 for the last shard).
    pub fn end(self) -> u128 {
        self.end
    }

    /// Whether `hash` falls in the range.
    pub fn contains(self, hash: u64) -> bool {
        (self.start..self.end).contains(&u128::from(hash))
    }

    /// `shardRange(FIELD, 'START', 'END')` as the API server parses it: each bound `0x` and
    /// 16 lowercase hex digits (17 for 2^64).
    pub fn selector(self, field: &str) -> String {
        format!(
            "shardRange({field}, '0x{:016x}', '0x{:016x}')",
            self.start, self.end
        )
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn the_hash_is_fnv_1a_as_the_api_server_computes_it() {
        // The empty input hashes to the offset basis; the others are Go's
        // `fmt.Sprintf("%016x", fnv.New64a().Sum64())` of the same bytes, and uids whose
        // shard the API server was seen to select (1 of 2 for the first, 0 of 2 for the
        // others).
        assert_eq!(uid_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(uid_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            uid_hash("03609080-adcb-4069-bdfe-dd7c22a4c84e"),
            0x83bb_eec6_fe2d_50a0
        );
        assert_eq!(
            uid_hash("76096159-de8f-4eac-a7a7-6facc77892e2"),
            0x5621_36eb_d801_7d0d
        );
    }

    #[test]
    fn selectors_have_the_bounds_the_server_parses() {
        let halves: Vec<String> = Shard::all(2).map(Shard::selector).collect();
        assert_eq!(
            halves,
            [
                "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
                "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
            ]
        );
        let thirds: Vec<String> = Shard::all(3).map(Shard::selector).collect();
        assert_eq!(
            thirds,
            [
                "shardRange(object.metadata.uid, '0x0000000000000000', '0x5555555555555556')",
                "shardRange(object.metadata.uid, '0x5555555555555556', '0xaaaaaaaaaaaaaaab')",
                "shardRange(object.metadata.uid, '0xaaaaaaaaaaaaaaab', '0x10000000000000000')",
            ]
        );
        assert_eq!(
            Shard::new(0, 1).map(Shard::selector).as_deref(),
            Some("shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')")
        );
    }

    #[test]
    fn a_range_is_not_empty_and_ends_by_2_to_the_64() {
        assert_eq!(HashRange::new(1, 1), None);
        assert_eq!(HashRange::new(0, SPACE + 1), None);
        assert_eq!(
            HashRange::new(0, 1)
                .map(|r| r.selector("object.metadata.uid"))
                .as_deref(),
            Some("shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000001')")
        );
    }

    #[test]
    fn a_shard_exists_only_below_its_count() {
        assert_eq!(Shard::new(2, 2), None);
        assert_eq!(Shard::new(0, 0), None);
        assert_eq!(Shard::of_hash(7, 0), None);
        assert_eq!(Shard::all(0).count(), 0);
        assert_eq!(Shard::of_hash(u64::MAX, 3), Shard::new(2, 3));
        assert_eq!(Shard::of_hash(0, 3), Shard::new(0, 3));
        assert_eq!(Shard::of_hash(0x5555_5555_5555_5555, 3), Shard::new(0, 3));
        assert_eq!(Shard::of_hash(0x5555_5555_5555_5556, 3), Shard::new(1, 3));
    }

    proptest! {
        #[test]
        fn the_shards_of_a_count_tile_the_space(count in 1u32..=1000) {
            let ranges: Vec<HashRange> = Shard::all(count).map(Shard::range).collect();
            prop_assert_eq!(ranges[0].start(), 0);
            prop_assert_eq!(ranges[ranges.len() - 1].end(), SPACE);
            for pair in ranges.windows(2) {
                prop_assert_eq!(pair[0].end(), pair[1].start());
                prop_assert!(pair[0].start() < pair[0].end());
            }
        }

        #[test]
        fn a_hash_is_held_by_its_shard_and_by_no_other(hash: u64, count in 1u32..=64) {
            let shard = Shard::of_hash(hash, count).expect("a count above 0");
            for other in Shard::all(count) {
                prop_assert_eq!(other.range().contains(hash), other == shard);
            }
        }
    }
}
