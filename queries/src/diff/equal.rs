//! Runs of equal lines at the start or the end of two slices.
//!
//! Owns: the two comparisons every search here repeats most, written as plain indexed
//! loops because the runs are usually short. Does not own: what the runs mean.

use gix_imara_diff::Token;

/// How many lines `old` and `new` share at their starts.
#[inline]
pub(super) fn equal_head(old: &[Token], new: &[Token]) -> usize {
    let len = old.len().min(new.len());
    let (old, new) = (&old[..len], &new[..len]);
    let mut run = 0;
    while run < len && old[run] == new[run] {
        run += 1;
    }
    run
}

/// How many lines `old` and `new` share at their ends.
#[inline]
pub(super) fn equal_tail(old: &[Token], new: &[Token]) -> usize {
    let len = old.len().min(new.len());
    let (old, new) = (&old[old.len() - len..], &new[new.len() - len..]);
    let mut run = 0;
    while run < len && old[len - 1 - run] == new[len - 1 - run] {
        run += 1;
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(ids: &[u32]) -> Vec<Token> {
        ids.iter().map(|&id| Token(id)).collect()
    }

    #[test]
    fn runs_stop_at_the_first_difference_or_the_shorter_end() {
        assert_eq!(equal_head(&tokens(&[1, 2, 3]), &tokens(&[1, 2, 4])), 2);
        assert_eq!(equal_head(&tokens(&[1, 2]), &tokens(&[1, 2, 3])), 2);
        assert_eq!(equal_tail(&tokens(&[0, 2, 3]), &tokens(&[1, 2, 3])), 2);
        assert_eq!(equal_tail(&tokens(&[3]), &tokens(&[1, 2, 3])), 1);
        assert_eq!(equal_tail(&tokens(&[]), &tokens(&[1])), 0);
    }
}
