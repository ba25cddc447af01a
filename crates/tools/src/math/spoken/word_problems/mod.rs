//! Word problems read as one sum: a percentage of the amount the sentence
//! before gives, a recipe scaled, doses, rates over amounts and periods,
//! shares, a bill split between people or a price for a group.
//! Each family of problems is read in a file of its own.

mod balances;
mod change;
mod fares_and_pay;
mod packs;
mod percentages;
mod prices;
mod profit;
mod rates;
mod scaling;
mod shares;

pub(super) use balances::*;
pub(super) use change::*;
pub(super) use fares_and_pay::*;
pub(super) use packs::*;
pub(super) use percentages::*;
pub(super) use prices::*;
pub(super) use profit::*;
pub(super) use rates::*;
pub(super) use scaling::*;
pub(super) use shares::*;

use super::units::{named_unit, singular};
use super::*;
