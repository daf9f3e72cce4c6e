// The console's pages, one module per area under pages/; callers import them from here.
export { esc } from './console.html';
export { errorPage, layout, signInPage } from './pages/layout';
export type { Frame, Page, StatusStep } from './pages/layout';
export { overviewFragment, overviewPage, sparkline } from './pages/overview.pages';
export { auditPage } from './pages/audit.pages';
export { needActionFragment, needActionPage, orderPage, ordersPage } from './pages/orders.pages';
export { callbackPage, callbacksPage } from './pages/callbacks.pages';
export { deadLettersPage } from './pages/dead-letters.pages';
export { transferPage, transfersPage } from './pages/transfers.pages';
export type { TransferLike } from './pages/transfers.pages';
export { booksPage, shopBooksPage, shopFeesPage } from './pages/books.pages';
export { providersPage } from './pages/providers.pages';
