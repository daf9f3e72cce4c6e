import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { statusCatalogue, StatusCodeEntry } from '@payments/status-codes';
import { PublicEndpoint } from '@payments/merchant-admin';

export interface StatusCodesAnswer {
  statusCodes: readonly StatusCodeEntry[];
}

/**
 * The status code catalogue, public: it holds nothing secret, and a merchant building an
 * integration reads it before having a key. Ordered by code, so the answer is stable.
 */
@ApiTags('status codes')
@Controller(['status-codes', 'api/v1/status-codes'])
export class StatusCodesController {
  @Get()
  @PublicEndpoint({
    summary: 'The status code catalogue: every S-CC-NN code with its description and whether a retry is allowed',
    response: {
      example: {
        statusCodes: [
          { code: '0-01-00', description: 'Operation completed successfully.', retryAllowed: false },
          {
            code: '2-07-04',
            description:
              'The provider reported an amount outside the allowed range, or a different currency; action is needed.',
            retryAllowed: false,
          },
        ],
      },
    },
  })
  list(): StatusCodesAnswer {
    return { statusCodes: statusCatalogue() };
  }
}
