/**
 * The technology compatibility kit, shipped in booking-core's test-jar: the contract suites a
 * backend of {@link org.slotbook.core.spi} passes. A backend subclasses each suite that applies
 * once ({@link org.slotbook.core.tck.BookingStoreContract}, {@link org.slotbook.core.tck.SeatReservationContract},
 * {@link org.slotbook.core.tck.BookingEngineContract}, {@link org.slotbook.core.tck.LessonsContract}) and
 * returns its own instance; every test works
 * in a fresh tenant, so one server may serve them all.
 *
 * <p>Its stability is the SPI's: before 1.0 a minor version may change both, and the changelog says
 * so.
 */
package org.slotbook.core.tck;
