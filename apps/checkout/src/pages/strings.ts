import type { PageLocale } from '@payments/contracts';

/**
 * Every string of the hosted pages, in the three languages (ARCHITECTURE.md section 8): one
 * catalogue, so that a page cannot show a string one language lacks (the type says so).
 */
const en = {
  appPay: 'Pay in the SandboxPay app',
  openApp: 'Open the SandboxPay app',
  scanQr: "Scan the code with your phone's camera to pay in the app.",
  openHere: 'Or open it on this device',
  approveInApp: 'Approve the payment in the app. This page updates by itself.',
  app: 'App',
  lang: 'English',
  title: 'Payment',
  payoutTitle: 'Payout',
  payTo: 'Payment to',
  amount: 'Amount',
  order: 'Order',
  timeLeft: 'Time left to pay',
  method: 'Payment method',
  card: 'Bank card',
  cardNumber: 'Card number',
  cardNumberHint: '16 digits on the front of the card',
  expiry: 'Valid thru (MM/YY)',
  holder: 'Name on card (optional)',
  pay: 'Pay',
  paying: 'Paying…',
  accepted: 'We accept',
  errFormat: 'Enter the card number: 12 to 19 digits.',
  errBrand: 'This card is not accepted here. Use a card of: {brands}.',
  errLuhn: 'The card number is not valid: check the digits.',
  errExpiry: 'Enter a valid expiry date, e.g. 08/29.',
  errForm: 'Please correct the fields marked below.',
  processingTitle: 'Payment in progress',
  processing: 'Your payment is being processed. This page updates by itself; do not close it.',
  paidTitle: 'Payment complete',
  paid: 'Thank you: the payment was successful.',
  failedTitle: 'Payment failed',
  failed: 'The payment did not go through. No money was taken; you can try again from the shop.',
  expiredTitle: 'This payment link has expired',
  expired: 'The time to pay this order is over. Return to the shop and start the payment again.',
  usedTitle: 'This link was already used',
  used: 'A payment was already made with this link, possibly in another tab. Nothing more was charged.',
  notFoundTitle: 'Payment link not found',
  notFound: 'Check that you opened the whole link the shop gave you.',
  busyTitle: 'Too many attempts',
  busy: 'Please wait a minute and try again.',
  noMethodTitle: 'No payment method available',
  noMethod:
    'This order cannot be paid here: none of the payment methods takes this amount or currency. Return to the shop.',
  backToShop: 'Return to the shop',
  secure: 'Card details go over an encrypted connection to the payment provider and are never shown to the shop.',
  minutes: 'min',
  payoutPayTo: 'Payout from',
  payoutMethod: 'Receive to',
  payoutSubmit: 'Receive the money',
  payoutDoneTitle: 'Details received',
  payoutDone: 'Thank you: the payout is on its way.',
};

export type Strings = typeof en;

const ru: Strings = {
  appPay: 'Оплатить в приложении SandboxPay',
  openApp: 'Открыть приложение SandboxPay',
  scanQr: 'Отсканируйте код камерой телефона, чтобы оплатить в приложении.',
  openHere: 'Или откройте на этом устройстве',
  approveInApp: 'Подтвердите платёж в приложении. Страница обновится сама.',
  app: 'Приложение',
  lang: 'Русский',
  title: 'Оплата',
  payoutTitle: 'Выплата',
  payTo: 'Оплата в пользу',
  amount: 'Сумма',
  order: 'Заказ',
  timeLeft: 'Осталось времени на оплату',
  method: 'Способ оплаты',
  card: 'Банковская карта',
  cardNumber: 'Номер карты',
  cardNumberHint: '16 цифр на лицевой стороне карты',
  expiry: 'Срок действия (ММ/ГГ)',
  holder: 'Имя на карте (необязательно)',
  pay: 'Оплатить',
  paying: 'Оплата…',
  accepted: 'Принимаем',
  errFormat: 'Введите номер карты: от 12 до 19 цифр.',
  errBrand: 'Эта карта здесь не принимается. Используйте карту: {brands}.',
  errLuhn: 'Номер карты неверен: проверьте цифры.',
  errExpiry: 'Введите действующий срок, например 08/29.',
  errForm: 'Исправьте отмеченные ниже поля.',
  processingTitle: 'Платёж обрабатывается',
  processing: 'Ваш платёж обрабатывается. Страница обновится сама; не закрывайте её.',
  paidTitle: 'Оплата прошла',
  paid: 'Спасибо: платёж выполнен успешно.',
  failedTitle: 'Оплата не прошла',
  failed: 'Платёж не прошёл. Деньги не списаны; можно попробовать снова из магазина.',
  expiredTitle: 'Срок действия ссылки истёк',
  expired: 'Время на оплату этого заказа вышло. Вернитесь в магазин и начните оплату заново.',
  usedTitle: 'Эта ссылка уже использована',
  used: 'По этой ссылке уже был выполнен платёж, возможно, в другой вкладке. Повторно ничего не списано.',
  notFoundTitle: 'Ссылка на оплату не найдена',
  notFound: 'Проверьте, что вы открыли ссылку магазина целиком.',
  busyTitle: 'Слишком много попыток',
  busy: 'Подождите минуту и попробуйте снова.',
  noMethodTitle: 'Нет доступного способа оплаты',
  noMethod:
    'Этот заказ нельзя оплатить здесь: ни один способ оплаты не принимает такую сумму или валюту. Вернитесь в магазин.',
  backToShop: 'Вернуться в магазин',
  secure: 'Данные карты передаются платёжному провайдеру по защищённому соединению и не видны магазину.',
  minutes: 'мин',
  payoutPayTo: 'Выплата от',
  payoutMethod: 'Куда получить',
  payoutSubmit: 'Получить деньги',
  payoutDoneTitle: 'Данные получены',
  payoutDone: 'Спасибо: выплата отправлена.',
};

const uz: Strings = {
  appPay: 'SandboxPay ilovasida toʻlash',
  openApp: 'SandboxPay ilovasini ochish',
  scanQr: 'Ilovada toʻlash uchun kodni telefon kamerasi bilan skanerlang.',
  openHere: 'Yoki shu qurilmada oching',
  approveInApp: 'Toʻlovni ilovada tasdiqlang. Sahifa oʻzi yangilanadi.',
  app: 'Ilova',
  lang: 'Oʻzbekcha',
  title: 'Toʻlov',
  payoutTitle: 'Toʻlov olish',
  payTo: 'Toʻlov oluvchi',
  amount: 'Summa',
  order: 'Buyurtma',
  timeLeft: 'Toʻlash uchun qolgan vaqt',
  method: 'Toʻlov usuli',
  card: 'Bank kartasi',
  cardNumber: 'Karta raqami',
  cardNumberHint: 'Kartaning old tomonidagi 16 ta raqam',
  expiry: 'Amal qilish muddati (OO/YY)',
  holder: 'Kartadagi ism (ixtiyoriy)',
  pay: 'Toʻlash',
  paying: 'Toʻlanmoqda…',
  accepted: 'Qabul qilamiz',
  errFormat: 'Karta raqamini kiriting: 12 tadan 19 tagacha raqam.',
  errBrand: 'Bu karta bu yerda qabul qilinmaydi. Quyidagi kartalardan foydalaning: {brands}.',
  errLuhn: 'Karta raqami notoʻgʻri: raqamlarni tekshiring.',
  errExpiry: 'Amal qilish muddatini kiriting, masalan 08/29.',
  errForm: 'Quyida belgilangan maydonlarni toʻgʻrilang.',
  processingTitle: 'Toʻlov amalga oshirilmoqda',
  processing: 'Toʻlovingiz qayta ishlanmoqda. Sahifa oʻzi yangilanadi; uni yopmang.',
  paidTitle: 'Toʻlov amalga oshirildi',
  paid: 'Rahmat: toʻlov muvaffaqiyatli bajarildi.',
  failedTitle: 'Toʻlov amalga oshmadi',
  failed: 'Toʻlov oʻtmadi. Pul yechilmadi; doʻkondan qayta urinib koʻrishingiz mumkin.',
  expiredTitle: 'Toʻlov havolasining muddati tugagan',
  expired: 'Bu buyurtmani toʻlash vaqti tugadi. Doʻkonga qayting va toʻlovni qaytadan boshlang.',
  usedTitle: 'Bu havoladan allaqachon foydalanilgan',
  used: 'Bu havola orqali toʻlov allaqachon qilingan, ehtimol boshqa oynada. Qayta pul yechilmadi.',
  notFoundTitle: 'Toʻlov havolasi topilmadi',
  notFound: 'Doʻkon bergan havolani toʻliq ochganingizni tekshiring.',
  busyTitle: 'Urinishlar juda koʻp',
  busy: 'Bir daqiqa kuting va qayta urinib koʻring.',
  noMethodTitle: 'Toʻlov usuli mavjud emas',
  noMethod:
    'Bu buyurtmani bu yerda toʻlab boʻlmaydi: hech bir toʻlov usuli bu summa yoki valyutani qabul qilmaydi. Doʻkonga qayting.',
  backToShop: 'Doʻkonga qaytish',
  secure: 'Karta maʼlumotlari toʻlov provayderiga shifrlangan ulanish orqali yuboriladi va doʻkonga koʻrsatilmaydi.',
  minutes: 'daq',
  payoutPayTo: 'Toʻlovchi',
  payoutMethod: 'Qayerga olish',
  payoutSubmit: 'Pulni olish',
  payoutDoneTitle: 'Maʼlumotlar qabul qilindi',
  payoutDone: 'Rahmat: toʻlov yuborildi.',
};

export const CATALOGUE: Record<PageLocale, Strings> = { en, ru, uz };

/** The page's language: the ?lang the payer picked, the merchant's locale, the browser's, else English. */
export function pickLocale(
  query: string | undefined,
  merchant: PageLocale | undefined,
  acceptLanguage: string | undefined,
): PageLocale {
  if (query === 'uz' || query === 'ru' || query === 'en') return query;
  if (merchant) return merchant;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().toLowerCase().split(';');
      const q = params.find((p) => p.trim().startsWith('q='));
      return { lang: tag.split('-')[0], q: q ? Number(q.trim().slice(2)) || 0 : 1 };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q);
  const hit = ranked.find((x) => x.lang === 'uz' || x.lang === 'ru' || x.lang === 'en');
  return (hit?.lang as PageLocale | undefined) ?? 'en';
}
