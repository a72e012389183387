-- The host application's own first migration (BookingApp): Spring Boot's Flyway finds it at its
-- default location, next to which Slotbook puts nothing.
CREATE TABLE host_customer (
    id   VARCHAR(64) PRIMARY KEY,
    name VARCHAR(200) NOT NULL
);
