/**
 * Slotbook's API: the engine, its policies, the values it takes and the results it answers. A map
 * of this package, in the order a newcomer needs it:
 *
 * <h2>The engine and its policies</h2>
 * <ul>
 *   <li>{@link org.slotbook.core.BookingEngine}: schedules sessions and sells their seats; built
 *       once per application over a store (and optionally a gate) and shared.</li>
 *   <li>{@link org.slotbook.core.ReconciliationJob}: the upkeep every deployment runs (expired
 *       holds swept, the gate reconciled).</li>
 *   <li>Policies, immutable and validated: {@link org.slotbook.core.HoldPolicy} (how long a hold
 *       lives), {@link org.slotbook.core.BookingRules} per tenant (with
 *       {@link org.slotbook.core.CancellationPolicy} and {@link org.slotbook.core.CreditPolicy}).</li>
 *   <li>What the host hears: {@link org.slotbook.core.BookingListener} (committed decisions),
 *       {@link org.slotbook.core.EngineObserver} (timings and gate health),
 *       {@link org.slotbook.core.EngineMetrics}, {@link org.slotbook.core.ReconcileReport}; and
 *       {@link org.slotbook.core.BookingStoreException} when the store is down.</li>
 * </ul>
 *
 * <h2>What the engine is given</h2>
 * {@link org.slotbook.core.SlotSpec} (one session), {@link org.slotbook.core.SeriesSpec} with
 * {@link org.slotbook.core.SeriesMode} (a weekly series), {@link org.slotbook.core.HoldRequest}
 * (one hold or book), {@link org.slotbook.core.PackageGrant} (credits for a student),
 * {@link org.slotbook.core.TimeRange}.
 *
 * <h2>Value types: the ids</h2>
 * Text ids of at most 64 characters, each checked when made: {@link org.slotbook.core.TenantId}
 * (every call is scoped to one), {@link org.slotbook.core.SlotId}, {@link org.slotbook.core.SeriesId},
 * {@link org.slotbook.core.StudentId}, {@link org.slotbook.core.CoachId},
 * {@link org.slotbook.core.RoomId}, {@link org.slotbook.core.BookingId} (assigned by the engine),
 * {@link org.slotbook.core.RequestId} (the caller's idempotency key),
 * {@link org.slotbook.core.PackageId}, all of them {@link org.slotbook.core.Identifier}s (ordered by
 * their text); and {@link org.slotbook.core.ResourceRef} with
 * {@link org.slotbook.core.ResourceKind} (a coach, room or student as the conflict check sees it).
 *
 * <h2>What the engine stores and reads back</h2>
 * {@link org.slotbook.core.Slot} ({@link org.slotbook.core.SlotStatus}),
 * {@link org.slotbook.core.Booking} ({@link org.slotbook.core.BookingStatus},
 * {@link org.slotbook.core.Attendance}), {@link org.slotbook.core.BookedSession},
 * {@link org.slotbook.core.WaitlistEntry}, {@link org.slotbook.core.LessonPackage},
 * {@link org.slotbook.core.CreditEntry}.
 *
 * <h2>Results, by operation</h2>
 * Expected outcomes (full, conflict, expired, too late) are values: each operation answers a sealed
 * interface of records, to be matched with a {@code switch}. A record that several operations can
 * answer ({@link org.slotbook.core.NotFound}, {@link org.slotbook.core.AlreadyCancelled},
 * {@link org.slotbook.core.Conflict}, {@link org.slotbook.core.InsufficientCredits}) implements each
 * of their interfaces.
 * <ul>
 *   <li>{@code schedule}: {@link org.slotbook.core.ScheduleResult} =
 *       {@link org.slotbook.core.Scheduled} | {@link org.slotbook.core.Conflict} (of
 *       {@link org.slotbook.core.ResourceConflict}s).</li>
 *   <li>{@code hold}, {@code book}: {@link org.slotbook.core.HoldResult} =
 *       {@link org.slotbook.core.Held} | {@link org.slotbook.core.Waitlisted} |
 *       {@link org.slotbook.core.Full} | {@link org.slotbook.core.AlreadyBooked} |
 *       {@link org.slotbook.core.Conflict} | {@link org.slotbook.core.LimitReached} |
 *       {@link org.slotbook.core.InsufficientCredits} | {@link org.slotbook.core.NotOpenYet} |
 *       {@link org.slotbook.core.BookingClosed} | {@link org.slotbook.core.SlotNotOpen} |
 *       {@link org.slotbook.core.NoLongerHeld} | {@link org.slotbook.core.NotFound}.</li>
 *   <li>{@code confirm}: {@link org.slotbook.core.ConfirmResult} =
 *       {@link org.slotbook.core.Confirmed} | {@link org.slotbook.core.HoldExpired} |
 *       {@link org.slotbook.core.AlreadyCancelled} | {@link org.slotbook.core.NotFound}.</li>
 *   <li>{@code cancel}, {@code cancelByStaff}: {@link org.slotbook.core.CancelResult} =
 *       {@link org.slotbook.core.Cancelled} | {@link org.slotbook.core.TooLateToCancel} |
 *       {@link org.slotbook.core.AlreadyCancelled} | {@link org.slotbook.core.NotFound}.</li>
 *   <li>{@code leaveWaitlist}: {@link org.slotbook.core.LeaveResult} =
 *       {@link org.slotbook.core.LeftWaitlist} | {@link org.slotbook.core.NotWaiting} |
 *       {@link org.slotbook.core.NotFound}.</li>
 *   <li>{@code cancelSlot}: {@link org.slotbook.core.CancelSlotResult} =
 *       {@link org.slotbook.core.SlotCancelled} | {@link org.slotbook.core.AlreadyCancelled} |
 *       {@link org.slotbook.core.NotFound}.</li>
 *   <li>{@code checkIn}, {@code checkInByStaff}: {@link org.slotbook.core.CheckInResult} =
 *       {@link org.slotbook.core.CheckedIn} | {@link org.slotbook.core.CheckInNotOpen} |
 *       {@link org.slotbook.core.CheckInClosed} | {@link org.slotbook.core.NotConfirmed} |
 *       {@link org.slotbook.core.InsufficientCredits} | {@link org.slotbook.core.NotFound}.</li>
 *   <li>{@code availability}: {@link org.slotbook.core.AvailabilityResult} =
 *       {@link org.slotbook.core.Availability} | {@link org.slotbook.core.NotFound}.</li>
 *   <li>Series: {@code scheduleSeries} answers {@link org.slotbook.core.SeriesResult},
 *       {@code bookSeries} {@link org.slotbook.core.SeriesBooking}, {@code cancelSeries}
 *       {@link org.slotbook.core.SeriesCancelled}.</li>
 * </ul>
 *
 * <h2>Around this package</h2>
 * {@link org.slotbook.core.spi}: what a backend implements (the plug-in point for third-party
 * stores and gates). {@link org.slotbook.core.memory}: in-memory backends.
 * {@link org.slotbook.core.shard}: a store routed by tenant. {@code org.slotbook.core.internal}
 * and its {@code engine} package hold the engine's machinery: not API.
 */
@NullMarked
package org.slotbook.core;

import org.jspecify.annotations.NullMarked;
