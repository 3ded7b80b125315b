//! Pagination shared by every list: `per_page` and `starting_after` in,
//! `next_token_starts_after` out.

use crate::error::ApiError;
use crate::error::ApiResult;

/// Page size when a request names none.
pub const DEFAULT_PER_PAGE: u32 = 25;
/// Largest page size a request may ask for.
pub const MAX_PER_PAGE: u32 = 100;

/// A validated page request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    /// Items per page, 1 to [`MAX_PER_PAGE`].
    pub per_page: u32,
    /// Return items after this token (the previous page's `next_token_starts_after`).
    pub starting_after: Option<String>,
}

impl PageRequest {
    /// Validates raw parameters.
    pub fn new(per_page: Option<u32>, starting_after: Option<String>) -> ApiResult<PageRequest> {
        let per_page = per_page.unwrap_or(DEFAULT_PER_PAGE);
        if !(1..=MAX_PER_PAGE).contains(&per_page) {
            return Err(ApiError::invalid(format!(
                "per_page must be between 1 and {MAX_PER_PAGE}"
            )));
        }
        let starting_after = starting_after.filter(|token| !token.is_empty());
        Ok(PageRequest {
            per_page,
            starting_after,
        })
    }

    /// How many items to fetch: one more than a page, to learn whether another follows.
    pub fn fetch_limit(&self) -> usize {
        self.per_page as usize + 1
    }
}

/// One page of items.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items, at most `per_page`.
    pub items: Vec<T>,
    /// Token for the next page; `None` on the last page.
    pub next_token_starts_after: Option<String>,
}

impl<T> Page<T> {
    /// Cuts `fetched` (fetched with [`PageRequest::fetch_limit`]) to a page,
    /// taking the token from the last item kept.
    pub fn from_fetched(
        mut fetched: Vec<T>,
        request: &PageRequest,
        token: impl Fn(&T) -> String,
    ) -> Page<T> {
        let more = fetched.len() > request.per_page as usize;
        fetched.truncate(request.per_page as usize);
        let next_token_starts_after = if more {
            fetched.last().map(token)
        } else {
            None
        };
        Page {
            items: fetched,
            next_token_starts_after,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_page_bounds() {
        assert_eq!(
            PageRequest::new(None, None).unwrap().per_page,
            DEFAULT_PER_PAGE
        );
        assert!(PageRequest::new(Some(0), None).is_err());
        assert!(PageRequest::new(Some(MAX_PER_PAGE + 1), None).is_err());
    }

    #[test]
    fn token_only_when_more_follow() {
        let request = PageRequest::new(Some(2), None).unwrap();
        let page = Page::from_fetched(vec![1, 2, 3], &request, |n| n.to_string());
        assert_eq!(page.items, [1, 2]);
        assert_eq!(page.next_token_starts_after.as_deref(), Some("2"));
        let last = Page::from_fetched(vec![1, 2], &request, |n| n.to_string());
        assert_eq!(last.next_token_starts_after, None);
    }
}
