/**
 * GET /api/v1/devices (docs/contract.md section 11): the device list of the console as JSON, with the same
 * filters, sorts, keyset cursor (`before`) and scoping, for the account the token stands for.
 * Parameters are those of the list's declaration (lists/devices.ts), checked strictly: an unknown
 * one, a repeated one or a bad value is a 400 problem that names it.
 */
import type { Handler } from 'hono';
import type { LabelledDevice } from '../domain/devices.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { DEVICES, deviceFilter } from '../lists/devices.ts';
import { parameterNames, repeatableNames } from '../lists/parameters.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { apiOperation } from './auth.ts';
import { listParameters } from './params.ts';
import { deviceJson, pageJson } from './resources.ts';

export function apiDevicesList(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(
    ctx,
    { parameters: parameterNames(DEVICES), repeatable: repeatableNames(DEVICES) },
    async (c, viewer) => {
      const q = listParameters(c, DEVICES);
      if (q instanceof Response) return q;
      const now = ctx.clock.now();
      const staleBefore = now - ctx.config.staleAfterMs;
      const page = await ctx.store.devicesVisibleTo(
        viewer,
        { before: q.before, limit: PAGE_SIZE },
        deviceFilter(q, staleBefore, now),
      );
      const item = (d: LabelledDevice) => deviceJson(d, staleBefore);
      return c.json(pageJson(page, item));
    },
  );
}
