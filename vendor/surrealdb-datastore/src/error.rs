//! Failures raised by the datastore layer.
//!
//! These are the failures of running a query against a the datastore, as
//! opposed to the failures of the storage backend underneath it
//! (the storage error) or of the index structures above it (the index error):
//! the session and realtime gates on the datastore's
//! entry points, the timeouts and thresholds that stop a query mid-flight, the
//! concurrent index-build protocol the datastore drives, and the on-disk
//! storage version it refuses to run against.

// The mapper below is the only place this layer's failures become public.
// A new variant must make that decision explicitly rather than inheriting
// whatever the last arm happened to be.
#![deny(clippy::wildcard_enum_match_arm)]

use common::{LeafError, internal_todo};
use surrealdb_expr::val::Duration;
use surrealdb_types::{AuthError, ConfigurationError, Error as TypesError, QueryError};

/// A failure in the datastore layer.
#[derive(Debug, thiserror::Error)]
pub enum DatastoreError {
	/// The session has expired
	#[error("The session has expired")]
	ExpiredSession,

	/// Unable to perform the realtime query
	#[error("Unable to perform the realtime query")]
	RealtimeDisabled,

	/// Invalid timeout
	#[error("Invalid timeout: {0:?} seconds")]
	InvalidTimeout(u64),

	/// The transaction timed out
	#[error("The transaction was not completed because it exceeded the timeout: {0}")]
	TransactionTimedout(Duration),

	/// A blocking index build outlasted the time its statement had left to
	/// wait for it.
	///
	/// Raised only once the statement has committed: its change is durable and
	/// the build carries on in the background, so the statement merely stopped
	/// waiting. Running it again while the build runs fails with
	/// [`DatastoreError::IndexAlreadyBuilding`].
	#[error(
		"The index rebuild was committed, but its build did not finish within the timeout of {0}. The build continues in the background: follow it with `INFO FOR INDEX` rather than running the statement again"
	)]
	IndexBuildOutlastedTimeout(Duration),

	/// The query was cancelled while a blocking index build its statement
	/// started was still running.
	///
	/// Raised only once the statement has committed, as
	/// [`DatastoreError::IndexBuildOutlastedTimeout`] is: the build carries on
	/// in the background, and only the statement stopped waiting for it.
	#[error(
		"The index rebuild was committed, but the query was cancelled before its build finished. The build continues in the background: follow it with `INFO FOR INDEX` rather than running the statement again"
	)]
	IndexBuildWaitCancelled,

	/// The query did not execute, because the memory threshold has been reached
	#[error("The query was not executed due to the memory threshold being reached")]
	QueryBeyondMemoryThreshold,

	/// The statement buffered the configured maximum number of individual key
	/// writes and was rolled back before accumulating more.
	///
	/// A statement's physical write count can vastly exceed its logical row
	/// count through cascaded deletes, full-text term maintenance and
	/// graph-edge cleanup; this bounds that fan-out.
	#[error(
		"Transaction exceeded the maximum number of key writes ({limit}). The statement's physical write fan-out (cascaded deletes, index maintenance, graph-edge cleanup) reached the `transaction_max_write_keys` limit and was rolled back. Reduce the operation's scope, or raise or disable the limit"
	)]
	TransactionWriteKeysExceeded {
		limit: u64,
	},

	/// The query did not execute, because the transaction has failed.
	#[error("The query was not executed due to a failed transaction. {message}")]
	QueryNotExecuted {
		message: String,
	},

	/// A value could not be allocated from a sequence, because a
	/// `DEFINE`/`REMOVE SEQUENCE` kept landing while it was being allocated.
	///
	/// The allocator rebuilds itself once against the definition as it stands;
	/// this is a second reset arriving during that rebuild, which means the
	/// sequence is being redefined repeatedly rather than once. Retrying is the
	/// right response, and no value was issued.
	#[error(
		"The sequence was redefined or removed while a value was being allocated from it. This transaction can be retried"
	)]
	SequenceReset,

	/// The index has been found to be inconsistent
	#[error("Index is corrupted: {0}")]
	CorruptedIndex(&'static str),

	/// A database index entry for the specified table is already building
	#[error("Database index `{name}` is currently building")]
	IndexAlreadyBuilding {
		name: String,
	},

	/// A the index building has been cancelled
	#[error("Index building has been cancelled: {reason}")]
	IndexingBuildingCancelled {
		reason: String,
	},

	/// There was an invalid storage version stored in the database
	#[error("There was an invalid storage version stored in the database")]
	InvalidStorageVersion,

	/// There was an outdated storage version stored in the database
	#[error(
		"The data stored on disk is out-of-date with this version (Expected: {expected}, Actual: {actual}). \
		 Please follow the upgrade guides in the documentation, \
		 or use a clean storage directory if this is intended to be a new instance"
	)]
	OutdatedStorageVersion {
		expected: u16,
		actual: u16,
	},

	/// The data on disk has been migrated by a newer version than this build
	#[error(
		"The data stored on disk was migrated by a newer version of SurrealDB \
		 (Stored: {stored}, Running: {running}) and cannot be read by this one. \
		 The following data migrations have been applied that this version does not know about: {migrations}. \
		 Run a version at or above {stored}, or restore from an export taken before the upgrade"
	)]
	MigratedBeyondStorageVersion {
		stored: String,
		running: String,
		migrations: String,
	},

	/// Another node held the migration lease for too long
	#[error(
		"Timed out waiting for another node to apply pending data migrations ({migrations}). \
		 Check whether the migrating node is still running, then restart this one"
	)]
	MigrationTimedOut {
		migrations: String,
	},
}

impl LeafError for DatastoreError {
	fn map_kind(self, message: String) -> TypesError {
		match self {
			DatastoreError::ExpiredSession => {
				TypesError::not_allowed(message, AuthError::SessionExpired)
			}
			DatastoreError::RealtimeDisabled => {
				TypesError::configuration(message, ConfigurationError::LiveQueryNotSupported)
			}
			DatastoreError::TransactionTimedout(duration)
			| DatastoreError::IndexBuildOutlastedTimeout(duration) => TypesError::query(
				message,
				QueryError::TimedOut {
					duration: duration.0,
				},
			),
			DatastoreError::IndexBuildWaitCancelled => {
				TypesError::query(message, QueryError::Cancelled)
			}
			// Shadows `message` deliberately: the payload string is what reaches
			// the client, not this error's own `Display` output.
			DatastoreError::TransactionWriteKeysExceeded {
				..
			} => TypesError::query(message, None),
			DatastoreError::QueryNotExecuted {
				message,
			} => TypesError::query(message, QueryError::NotExecuted),
			// Retryable, and for the same reason a write conflict is: another
			// statement changed what this one was operating on.
			DatastoreError::SequenceReset => {
				TypesError::query(message, QueryError::TransactionConflict)
			}
			DatastoreError::CorruptedIndex(_)
			| DatastoreError::IndexAlreadyBuilding {
				..
			}
			| DatastoreError::IndexingBuildingCancelled {
				..
			} => TypesError::internal(message),
			DatastoreError::InvalidTimeout(_)
			| DatastoreError::QueryBeyondMemoryThreshold
			| DatastoreError::InvalidStorageVersion
			| DatastoreError::OutdatedStorageVersion {
				..
			}
			| DatastoreError::MigratedBeyondStorageVersion {
				..
			}
			| DatastoreError::MigrationTimedOut {
				..
			} => internal_todo(message),
		}
	}
}
