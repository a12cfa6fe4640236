//! Up to [`MAX_DIM`] numbers held inline: per-dimension values (shapes, grids, strides)
//! computed on the way, without allocating.

use super::MAX_DIM;

/// At most [`MAX_DIM`] values, read as a slice.
#[derive(Clone, Copy)]
pub(crate) struct Dims<T: Copy + Default> {
    len: usize,
    v: [T; MAX_DIM],
}

impl<T: Copy + Default> Dims<T> {
    /// No values.
    pub(crate) fn new() -> Dims<T> {
        Dims {
            len: 0,
            v: [T::default(); MAX_DIM],
        }
    }

    /// Add a value (a logic error past [`MAX_DIM`]).
    pub(crate) fn push(&mut self, x: T) {
        self.v[self.len] = x;
        self.len += 1;
    }
}

impl<T: Copy + Default> std::ops::Deref for Dims<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.v[..self.len]
    }
}

impl<T: Copy + Default> std::ops::DerefMut for Dims<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.v[..self.len]
    }
}

impl<'a, T: Copy + Default> IntoIterator for &'a Dims<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> std::slice::Iter<'a, T> {
        self.iter()
    }
}

impl<T: Copy + Default> FromIterator<T> for Dims<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Dims<T> {
        let mut d = Dims::new();
        for x in iter {
            d.push(x);
        }
        d
    }
}

impl<T: Copy + Default + PartialEq> PartialEq for Dims<T> {
    fn eq(&self, other: &Dims<T>) -> bool {
        **self == **other
    }
}

impl<T: Copy + Default + Eq> Eq for Dims<T> {}

impl<T: Copy + Default + std::fmt::Debug> std::fmt::Debug for Dims<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_the_slice_it_holds() {
        let mut d: Dims<i64> = [3, 4].into_iter().collect();
        d.push(5);
        assert_eq!(&*d, &[3, 4, 5]);
        assert_eq!(d, [3, 4, 5].into_iter().collect::<Dims<i64>>());
        assert_ne!(d, [3, 4].into_iter().collect());
        d[0] = 9;
        assert_eq!(format!("{d:?}"), "[9, 4, 5]");
        assert!(Dims::<i32>::new().is_empty());
    }
}
