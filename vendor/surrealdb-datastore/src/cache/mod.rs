pub mod ds;
pub mod tx;
