-- The host application's second migration.
CREATE TABLE host_purchase (
    id          VARCHAR(64) PRIMARY KEY,
    customer_id VARCHAR(64) NOT NULL
);
