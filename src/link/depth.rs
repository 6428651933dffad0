//! A serde deserializer wrapper that bounds nesting depth.
//!
//! Postcard has no recursion limit, and the model nests (`Instr::Wait` holds a boxed
//! `Instr`, `Cond::Not` a boxed `Cond`). A few hundred compressed bytes can describe tens
//! of thousands of levels, enough to overflow the stack (1 MiB on wasm32). Every sequence,
//! map, enum, option and newtype entered costs one level of the budget.

use std::cell::Cell;
use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// How deep the value being decoded may nest, and whether it tried to go deeper.
pub(super) struct Budget {
    depth: Cell<u32>,
    max: u32,
    exceeded: Cell<bool>,
}

impl Budget {
    pub(super) fn new(max: u32) -> Self {
        Budget { depth: Cell::new(0), max, exceeded: Cell::new(false) }
    }

    pub(super) fn exceeded(&self) -> bool {
        self.exceeded.get()
    }

    fn enter<E: de::Error>(&self) -> Result<(), E> {
        let depth = self.depth.get() + 1;
        if depth > self.max {
            self.exceeded.set(true);
            return Err(E::custom("nesting too deep"));
        }
        self.depth.set(depth);
        Ok(())
    }

    fn leave(&self) {
        self.depth.set(self.depth.get().saturating_sub(1));
    }

    fn nested<T, E: de::Error>(&self, body: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        self.enter()?;
        let result = body();
        self.leave();
        result
    }
}

/// Wraps a deserializer so that everything it hands out is depth-checked too.
pub(super) struct Limited<'b, D> {
    pub(super) inner: D,
    pub(super) budget: &'b Budget,
}

struct LimitedVisitor<'b, V> {
    inner: V,
    budget: &'b Budget,
}

struct LimitedSeed<'b, S> {
    inner: S,
    budget: &'b Budget,
}

macro_rules! forward_deserialize {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method(LimitedVisitor { inner: visitor, budget: self.budget })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Limited<'_, D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = LimitedVisitor { inner: visitor, budget: self.budget };
        self.inner.deserialize_unit_struct(name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = LimitedVisitor { inner: visitor, budget: self.budget };
        self.inner.deserialize_newtype_struct(name, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = LimitedVisitor { inner: visitor, budget: self.budget };
        self.inner.deserialize_tuple(len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = LimitedVisitor { inner: visitor, budget: self.budget };
        self.inner.deserialize_tuple_struct(name, len, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = LimitedVisitor { inner: visitor, budget: self.budget };
        self.inner.deserialize_struct(name, fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = LimitedVisitor { inner: visitor, budget: self.budget };
        self.inner.deserialize_enum(name, variants, visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident($ty:ty))*) => {$(
        fn $method<E: de::Error>(self, value: $ty) -> Result<V::Value, E> {
            self.inner.$method(value)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for LimitedVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visit! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64)
        visit_i128(i128) visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64)
        visit_u128(u128) visit_f32(f32) visit_f64(f64) visit_char(char) visit_str(&str)
        visit_borrowed_str(&'de str) visit_string(String) visit_bytes(&[u8])
        visit_borrowed_bytes(&'de [u8]) visit_byte_buf(Vec<u8>)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<V::Value, D::Error> {
        let budget = self.budget;
        budget.nested(|| self.inner.visit_some(Limited { inner, budget }))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, inner: D) -> Result<V::Value, D::Error> {
        let budget = self.budget;
        budget.nested(|| self.inner.visit_newtype_struct(Limited { inner, budget }))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, inner: A) -> Result<V::Value, A::Error> {
        let budget = self.budget;
        budget.nested(|| self.inner.visit_seq(LimitedAccess { inner, budget }))
    }

    fn visit_map<A: MapAccess<'de>>(self, inner: A) -> Result<V::Value, A::Error> {
        let budget = self.budget;
        budget.nested(|| self.inner.visit_map(LimitedAccess { inner, budget }))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, inner: A) -> Result<V::Value, A::Error> {
        let budget = self.budget;
        budget.nested(|| self.inner.visit_enum(LimitedAccess { inner, budget }))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for LimitedSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, inner: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Limited { inner, budget: self.budget })
    }
}

/// Sequence, map, enum and variant access whose elements stay depth-checked.
struct LimitedAccess<'b, A> {
    inner: A,
    budget: &'b Budget,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for LimitedAccess<'_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let seed = LimitedSeed { inner: seed, budget: self.budget };
        self.inner.next_element_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for LimitedAccess<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let seed = LimitedSeed { inner: seed, budget: self.budget };
        self.inner.next_key_seed(seed)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        let seed = LimitedSeed { inner: seed, budget: self.budget };
        self.inner.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, 'b, A: EnumAccess<'de>> EnumAccess<'de> for LimitedAccess<'b, A> {
    type Error = A::Error;
    type Variant = LimitedAccess<'b, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), A::Error> {
        let budget = self.budget;
        let (value, inner) = self.inner.variant_seed(LimitedSeed { inner: seed, budget })?;
        Ok((value, LimitedAccess { inner, budget }))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for LimitedAccess<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.inner.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        let seed = LimitedSeed { inner: seed, budget: self.budget };
        self.inner.newtype_variant_seed(seed)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        let visitor = LimitedVisitor { inner: visitor, budget: self.budget };
        self.inner.tuple_variant(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let visitor = LimitedVisitor { inner: visitor, budget: self.budget };
        self.inner.struct_variant(fields, visitor)
    }
}
