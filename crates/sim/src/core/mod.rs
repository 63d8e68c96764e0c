//! The bottom layer: integer time, seeded random streams, the ring and the packet slab,
//! the event list, the memory estimate, and the schema building blocks every family's
//! parser uses. Imports nothing from the layers above.

pub mod check;
pub mod event;
pub mod memory;
pub mod packet;
pub mod ring;
pub mod rng;
pub mod schema;
pub mod tagged;
pub mod time;
pub mod units;
