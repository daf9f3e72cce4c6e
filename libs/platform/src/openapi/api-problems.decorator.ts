import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ProblemTypes } from '../problem';
import { PROBLEM_REF, PROBLEM_STATUSES, problemExample, ProblemStatus } from './problem.schema';

/**
 * Declares error responses: each status answers `application/problem+json` with the shared Problem
 * schema and one example per problem type it can carry (400 has two: validation and bad JSON).
 */
export function ApiProblems(...statuses: ProblemStatus[]): MethodDecorator & ClassDecorator {
  const unique = [...new Set(statuses)].sort((a, b) => a - b);
  return applyDecorators(
    ...unique.map((status) => {
      const kinds = PROBLEM_STATUSES[status];
      const examples = Object.fromEntries(
        kinds.map((kind) => [kind, { summary: ProblemTypes[kind].title, value: problemExample(kind) }]),
      );
      return ApiResponse({
        status,
        description: kinds
          .map((kind) => `\`/problems/${ProblemTypes[kind].slug}\`: ${ProblemTypes[kind].title}`)
          .join('; '),
        content: { 'application/problem+json': { schema: { $ref: PROBLEM_REF }, examples } },
      });
    }),
  );
}
