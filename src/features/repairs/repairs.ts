// The operator's view of projection repairs (src/projection/repair-store.ts): the list, one
// repair, and a retry that requeues it for the repair pass.
import type { Db } from "../../db/client.ts";
import { checkPagination } from "../../core/pagination.ts";
import { DomainError, notFound, validationError } from "../../core/errors.ts";
import {
  findRepair,
  listRepairs,
  REPAIR_STATES,
  requeueRepair,
  type RepairRow,
} from "../../projection/repair-store.ts";

export type Repair = RepairRow;

export class Repairs {
  constructor(
    private readonly db: Db,
    /** Runs the repair pass soon. */
    private readonly kick: () => void,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async list(
    page: number,
    perPage: number,
    status: string | null,
  ): Promise<{ data: Repair[]; meta: { total: number; page: number; perPage: number; totalPages: number } }> {
    checkPagination(page, perPage);
    if (status !== null && !REPAIR_STATES.includes(status as never))
      throw validationError(`Unknown status ${status}.`, [{ field: "status", message: REPAIR_STATES.join(", ") }]);
    const { rows, total } = await listRepairs(this.db, page, perPage, status);
    return { data: rows, meta: { total, page, perPage, totalPages: Math.ceil(total / perPage) } };
  }

  async get(targetEventId: string): Promise<Repair> {
    const repair = await findRepair(this.db, targetEventId);
    if (!repair) throw notFound("repair-not-found", `No projection repair for ${targetEventId}.`);
    return repair;
  }

  /** Requeues a pending or manual repair (the pass applies it again soon); a resolved one is 409. */
  async retry(targetEventId: string): Promise<Repair> {
    const repair = await this.get(targetEventId);
    if (repair.status === "resolved")
      throw new DomainError("repair-resolved", 409, `The repair of ${targetEventId} is resolved.`);
    const updated = await requeueRepair(this.db, targetEventId, this.clock());
    this.kick();
    return updated;
  }
}
