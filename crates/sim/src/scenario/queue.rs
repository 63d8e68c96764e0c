//! A link's `queue` table: the queue disciplines' registry (net/queue/registry.rs), each
//! discipline's table beside its algorithm in net/queue/; re-exported here with the
//! defaults other tables share.

pub(crate) use crate::net::queue::disc::d_one_u32;
pub(crate) use crate::net::queue::registry::d_queue_json;
pub use crate::net::queue::registry::QueueSpec;
pub(crate) use crate::net::queue::superpacket::d_epoch;

pub(crate) fn d_one() -> u32 {
    1
}
