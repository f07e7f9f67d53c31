//! What the standings keep per game of a run's own schedule, stored by the game's ordinal there
//! (its place from 0 among the schedule's games, `Schedule::ordinal`) instead of in a hash map
//! keyed by the game's place and a list sorted at the end.
//!
//! A league's standings at its end read only its own games, each at a known place. Keyed by a
//! hash, the check against duplicates took 16 bytes a game in a table kept at most seven-eighths
//! full (and twice that while it grew), and the online rating a 32-byte entry a game, kept to be
//! sorted into schedule order at the end, with 4 bytes more a game for the sort. By ordinal, each
//! takes its bytes and no more, in pages made as the first game of each comes, and the games are
//! already in schedule order: over a 10,080-game league the standings' peak heap went from about
//! 1.6 MB to 1.2 MB (README, "Memory of a long league").

/// Games per page: a page is made when the first of its games comes, so a schedule played only in
/// part (a shard, a run stopped early) takes pages for the games it has.
const PAGE: usize = 1024;

/// One value per ordinal, for the ordinals given one.
#[derive(Clone, Debug)]
pub(crate) struct ByOrdinal<T> {
    pages: Vec<Option<Box<Page<T>>>>,
    /// How many ordinals there are: the schedule's games.
    len: u64,
}

#[derive(Clone, Debug)]
struct Page<T> {
    /// Which slots hold a value, a bit each.
    used: [u64; PAGE / 64],
    slots: Box<[T]>,
}

impl<T: Copy + Default> ByOrdinal<T> {
    /// Room for ordinals `0..len`, none of them given a value yet.
    pub fn new(len: u64) -> ByOrdinal<T> {
        ByOrdinal {
            pages: Vec::new(),
            len,
        }
    }

    /// How many ordinals there are.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The value at `ordinal`, if it was given one.
    pub fn get(&self, ordinal: u64) -> Option<T> {
        let (page, slot) = split(ordinal);
        let page = self.pages.get(page)?.as_ref()?;
        (page.used[slot / 64] >> (slot % 64) & 1 == 1).then(|| page.slots[slot])
    }

    /// Gives `ordinal` a value (replacing the one it had). An ordinal outside `0..len` is not
    /// the schedule's: refused, nothing is stored.
    pub fn set(&mut self, ordinal: u64, value: T) -> Result<(), String> {
        if ordinal >= self.len {
            return Err(format!(
                "ordinal {ordinal} is outside the schedule's {} games",
                self.len
            ));
        }
        let (page, slot) = split(ordinal);
        if self.pages.len() <= page {
            self.pages.resize_with(page + 1, || None);
        }
        let page = self.pages[page].get_or_insert_with(|| {
            Box::new(Page {
                used: [0; PAGE / 64],
                slots: vec![T::default(); PAGE].into_boxed_slice(),
            })
        });
        page.used[slot / 64] |= 1 << (slot % 64);
        page.slots[slot] = value;
        Ok(())
    }

    /// The values given, in the order of their ordinals.
    pub fn values(&self) -> impl Iterator<Item = T> + '_ {
        self.pages.iter().flatten().flat_map(|page| {
            (0..PAGE)
                .filter(|&slot| page.used[slot / 64] >> (slot % 64) & 1 == 1)
                .map(|slot| page.slots[slot])
        })
    }
}

fn split(ordinal: u64) -> (usize, usize) {
    (
        (ordinal / PAGE as u64) as usize,
        (ordinal % PAGE as u64) as usize,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_at_their_ordinals_and_in_their_order_whatever_order_they_were_given() {
        let mut map = ByOrdinal::<u32>::new(5000);
        let given = [4999u64, 0, 1023, 1024, 2500, 7, 4096];
        for &o in &given {
            map.set(o, o as u32 + 1).unwrap();
        }
        for o in 0..5000 {
            let expected = given.contains(&o).then_some(o as u32 + 1);
            assert_eq!(map.get(o), expected, "ordinal {o}");
        }
        let mut sorted = given.to_vec();
        sorted.sort_unstable();
        let values: Vec<u32> = map.values().collect();
        assert_eq!(
            values,
            sorted.iter().map(|&o| o as u32 + 1).collect::<Vec<_>>()
        );
        // A value of the type's default is still a value.
        map.set(3, 0).unwrap();
        assert_eq!(map.get(3), Some(0));
        // Pages only for the games that came: 0, 1, 2, 4 of 5.
        assert_eq!(map.pages.iter().filter(|p| p.is_some()).count(), 4);
    }

    #[test]
    fn an_ordinal_past_the_schedule_is_refused_and_stores_nothing() {
        let mut map = ByOrdinal::<u32>::new(10);
        assert!(map
            .set(10, 1)
            .unwrap_err()
            .contains("outside the schedule's 10 games"));
        assert!(map.set(u64::MAX, 1).is_err());
        assert_eq!(map.get(10), None);
        assert!(map.pages.is_empty());
        assert_eq!(map.values().count(), 0);
    }
}
