//! [`optional_fields!`]: a struct whose `Option` fields are left out of
//! what it writes when they are `None`, in the spec (`oai`) and in serde
//! alike, so a PATCH body, a stored campaign and an answer show only what
//! was given.

/// Declares a struct whose `Option<T>` fields each skip serializing when
/// `None` (poem-openapi's `skip_serializing_if_is_none` and serde's
/// `skip_serializing_if`); its other fields are declared as written. The
/// struct must derive `Object` and `Serialize`; its attributes and each
/// field's (docs, validators, renames) are the caller's.
macro_rules! optional_fields {
    (
        $(#[$meta:meta])*
        pub struct $name:ident { $($fields:tt)* }
    ) => {
        $crate::resources::optional_fields::optional_fields!(
            @munch [$(#[$meta])* pub struct $name] [] $($fields)*
        );
    };
    (
        @munch $head:tt [$($done:tt)*]
        $(#[$field_meta:meta])* pub $field:ident : Option<$ty:ty> $(, $($rest:tt)*)?
    ) => {
        $crate::resources::optional_fields::optional_fields!(@munch $head [
            $($done)*
            $(#[$field_meta])*
            #[oai(skip_serializing_if_is_none)]
            #[serde(skip_serializing_if = "Option::is_none")]
            pub $field: Option<$ty>,
        ] $($($rest)*)?);
    };
    (
        @munch $head:tt [$($done:tt)*]
        $(#[$field_meta:meta])* pub $field:ident : $ty:ty $(, $($rest:tt)*)?
    ) => {
        $crate::resources::optional_fields::optional_fields!(@munch $head [
            $($done)*
            $(#[$field_meta])*
            pub $field: $ty,
        ] $($($rest)*)?);
    };
    (@munch [$($head:tt)*] [$($done:tt)*]) => {
        $($head)* { $($done)* }
    };
}

pub(crate) use optional_fields;
