// postinstall: generates the Prisma clients (SQLite and PostgreSQL) into src/db/generated.
import { generateClients } from "../db/prisma-cli.ts";

generateClients();
